import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

/*
 * Libraries load with the path that needs them, not with the server: the
 * MongoDB driver (some 15 MB of memory with its BSON buffer) only for a
 * MongoDB store, the XML writer at the first OPML export or river feed, the
 * parsers in the parse workers (the main thread parses nothing). Each case
 * starts the plugin in a fresh process and asks Node's module cache which
 * packages' files were read.
 */

const root = fileURLToPath(new URL("../../", import.meta.url));
const folder = mkdtempSync(path.join(tmpdir(), "blogroll-open-"));
after(() => rmSync(folder, { recursive: true, force: true }));

/** Runs `body` (an ES module's statements) in a new process; `loaded(name)` tells whether a package's files were read. */
function inFreshProcess(body: string): unknown {
  const script = `
    import { createRequire } from "node:module";
    const loaded = (name) =>
      Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes("/node_modules/" + name + "/"));
    ${body}
  `;
  const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
  });
  return JSON.parse(output.trim().split("\n").at(-1)!);
}

describe("libraries load with the path that needs them", () => {
  it("the standalone server on SQLite, its API answered, loads neither the MongoDB driver, the XML writer nor the parsers", () => {
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
      const packages = ["mongodb", "xmlbuilder2", "saxes", "microformats-parser"];
      const atStart = packages.filter(loaded);
      const opml = await fetch("http://127.0.0.1:" + server.address().port + plugin.mountPath + "/api/opml");
      await opml.arrayBuffer();
      const afterExport = packages.filter(loaded);
      server.close();
      await plugin.destroy();
      console.log(JSON.stringify({ status, atStart, opml: opml.status, afterExport }));
    `);
    assert.deepEqual(result, { status: 200, atStart: [], opml: 200, afterExport: ["xmlbuilder2"] });
  });

  it("the MongoDB driver is loaded when the store is the host's collections", () => {
    const result = inFreshProcess(`
      const before = loaded("mongodb");
      const { openStorage, COLLECTION_NAMES } = await import(${JSON.stringify(path.join(root, "lib/storage/open.ts"))});
      const { createFakeDb } = await import(${JSON.stringify(path.join(root, "test/support/fake-mongo.ts"))});
      const db = createFakeDb();
      const collections = new Map(Object.values(COLLECTION_NAMES).map((name) => [name, db.collection(name)]));
      const storage = await openStorage({ hostCollections: collections, mongodbUrl: null, databasePath: "unused.db" });
      await storage.close();
      console.log(JSON.stringify({ before, loaded: loaded("mongodb") }));
    `);
    assert.deepEqual(result, { before: false, loaded: true });
  });
});
