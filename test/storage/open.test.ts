import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

/*
 * The MongoDB driver (some 15 MB of memory with its BSON buffer) is loaded
 * only when the store is MongoDB. Each case starts the plugin in a fresh
 * process and asks Node's module cache whether the driver's files were read.
 */

const root = fileURLToPath(new URL("../../", import.meta.url));
const folder = mkdtempSync(path.join(tmpdir(), "blogroll-open-"));
after(() => rmSync(folder, { recursive: true, force: true }));

/** Runs `body` (an ES module's statements) in a new process; `driverLoaded()` is defined for it. */
function inFreshProcess(body: string): unknown {
  const script = `
    import { createRequire } from "node:module";
    const driverLoaded = () =>
      Object.keys(createRequire(import.meta.url).cache).some((file) => /[\\\\/]node_modules[\\\\/]mongodb[\\\\/]/.test(file));
    ${body}
  `;
  const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
  });
  return JSON.parse(output.trim().split("\n").at(-1)!);
}

describe("the MongoDB driver is loaded only for a MongoDB store", () => {
  it("is not loaded by the standalone server on SQLite, its API answered", () => {
    const result = inFreshProcess(`
      const { default: BlogrollEndpoint } = await import(${JSON.stringify(path.join(root, "index.ts"))});
      const { createStandaloneApp } = await import(${JSON.stringify(path.join(root, "lib/standalone/app.ts"))});
      const plugin = new BlogrollEndpoint(
        { scheduler: false, mongodbUrl: null, databasePath: ${JSON.stringify(path.join(folder, "sqlite", "blogroll.db"))} },
        { info() {}, warn() {}, error() {} },
      );
      const { app } = await createStandaloneApp(plugin, { adminToken: "open-test-admin-token" });
      const server = app.listen(0, "127.0.0.1");
      await new Promise((resolve) => server.once("listening", resolve));
      const response = await fetch("http://127.0.0.1:" + server.address().port + plugin.mountPath + "/api/blogs");
      const status = response.status;
      await response.arrayBuffer();
      server.close();
      await plugin.destroy();
      console.log(JSON.stringify({ status, loaded: driverLoaded() }));
    `);
    assert.deepEqual(result, { status: 200, loaded: false });
  });

  it("is loaded when the store is the host's collections", () => {
    const result = inFreshProcess(`
      const before = driverLoaded();
      const { openStorage, COLLECTION_NAMES } = await import(${JSON.stringify(path.join(root, "lib/storage/open.ts"))});
      const { createFakeDb } = await import(${JSON.stringify(path.join(root, "test/support/fake-mongo.ts"))});
      const db = createFakeDb();
      const collections = new Map(Object.values(COLLECTION_NAMES).map((name) => [name, db.collection(name)]));
      const storage = await openStorage({ hostCollections: collections, mongodbUrl: null, databasePath: "unused.db" });
      await storage.close();
      console.log(JSON.stringify({ before, loaded: driverLoaded() }));
    `);
    assert.deepEqual(result, { before: false, loaded: true });
  });
});
