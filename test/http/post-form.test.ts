/** postForm: the outbound POST of hub requests and cloud registrations obeys the rules of every fetch. */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { FetchError } from "../../lib/http/errors.js";
import { postForm } from "../../lib/http/post-form.js";

async function server(handler: Parameters<typeof createServer>[1]) {
  const listening = createServer(handler);
  await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(listening.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        listening.closeAllConnections();
        listening.close(resolve);
      }),
  };
}

describe("postForm", () => {
  it("refuses private addresses unless allowed, on the first hop and after a redirect", async () => {
    await assert.rejects(
      postForm("http://127.0.0.1:9/hub", { a: "b" }, { timeout: 2000, allowPrivateNetworks: false }),
      (error: unknown) => error instanceof FetchError && error.code === "blocked_address",
    );
    await assert.rejects(
      postForm("http://[::1]:9/hub", { a: "b" }, { timeout: 2000, allowPrivateNetworks: false }),
      (error: unknown) => error instanceof FetchError && error.code === "blocked_address",
    );
  });

  it("stops at its deadline, and reads only the start of a long answer", async () => {
    const slow = await server(() => undefined);
    const long = await server((_request, response) => response.end("x".repeat(100_000)));
    try {
      await assert.rejects(
        postForm(`${slow.url}/`, {}, { timeout: 300, allowPrivateNetworks: true }),
        (error: unknown) => error instanceof FetchError && error.code === "timeout",
      );
      const answer = await postForm(`${long.url}/`, {}, { timeout: 2000, allowPrivateNetworks: true, maxAnswer: 1000 });
      assert.equal(answer.status, 200);
      assert.equal(answer.text.length, 1000);
    } finally {
      await slow.close();
      await long.close();
    }
  });

  it("sends the fields form-encoded, and does not follow a 302 (only 307/308 repeat a POST)", async () => {
    let received = "";
    const hub = await server((request, response) => {
      let body = "";
      request.on("data", (chunk) => (body += chunk));
      request.on("end", () => {
        received = `${request.headers["content-type"]} ${body}`;
        response.writeHead(302, { location: "/elsewhere" }).end();
      });
    });
    try {
      const answer = await postForm(
        `${hub.url}/`,
        { "hub.mode": "subscribe", "hub.topic": "https://a.example/?x=1&y" },
        { timeout: 2000, allowPrivateNetworks: true },
      );
      assert.equal(answer.status, 302);
      assert.equal(
        received,
        "application/x-www-form-urlencoded hub.mode=subscribe&hub.topic=https%3A%2F%2Fa.example%2F%3Fx%3D1%26y",
      );
    } finally {
      await hub.close();
    }
  });
});
