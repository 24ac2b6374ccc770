import assert from "node:assert/strict";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { FetchError, type FetchErrorCode, type FetchOptions } from "../../lib/http/fetch.js";

/** Options for fetches to the local fixture servers (private networks allowed). */
export const open: FetchOptions = { timeout: 3000, maxBodySize: 100_000, allowPrivateNetworks: true };
/** The production policy: private networks refused. */
export const closed: FetchOptions = { ...open, allowPrivateNetworks: false };

/** Asserts that `promise` rejects with a FetchError of `code` whose message does not match `notMatching`. */
export async function rejectsWith(
  promise: Promise<unknown>,
  code: FetchErrorCode,
  notMatching?: RegExp,
): Promise<FetchError> {
  let caught: FetchError | undefined;
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof FetchError, `expected a FetchError, got ${String(error)}`);
    assert.equal(error.code, code, `${error.code}: ${error.message}`);
    if (notMatching) assert.doesNotMatch(error.message, notMatching);
    caught = error;
    return true;
  });
  return caught as FetchError;
}

/** A raw TCP server on 127.0.0.1 for responses node:http will not produce (wrong lengths, resets). */
export async function startRawServer(
  reply: (socket: Socket) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    socket.once("data", () => reply(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
