import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { optionsFromEnvironment as pluginOptionsFromEnvironment } from "../../lib/options.js";
import { respond, startFixtureServer, type FixtureServer } from "../support/fixture-server.js";

const TOKEN = "environment-test-token-0123456789";

describe("standalone plugin options from the environment", () => {
  it("maps each variable to its option, and leaves unset or empty ones out", () => {
    assert.deepEqual(
      pluginOptionsFromEnvironment({
        BLOGROLL_DATABASE: "/tmp/b.db",
        MONGODB_URL: "mongodb://db/x",
        BLOGROLL_PUBLIC_URL: "https://b.example",
        BLOGROLL_ALLOW_PRIVATE_NETWORKS: "true",
      }),
      {
        databasePath: "/tmp/b.db",
        mongodbUrl: "mongodb://db/x",
        publicUrl: "https://b.example",
        allowPrivateNetworks: true,
      },
    );
    assert.deepEqual(pluginOptionsFromEnvironment({ BLOGROLL_DATABASE: "", BLOGROLL_ALLOW_PRIVATE_NETWORKS: "" }), {});
    for (const [value, allowed] of [
      ["1", true],
      ["TRUE", true],
      ["false", false],
      ["0", false],
      [" False ", false],
    ] as const) {
      assert.equal(
        pluginOptionsFromEnvironment({ BLOGROLL_ALLOW_PRIVATE_NETWORKS: value }).allowPrivateNetworks,
        allowed,
        value,
      );
    }
  });

  it("refuses a value that is neither true nor false, naming the variable", () => {
    for (const value of ["yes", "on", "2", "tru"]) {
      assert.throws(() => pluginOptionsFromEnvironment({ BLOGROLL_ALLOW_PRIVATE_NETWORKS: value }), {
        message: `BLOGROLL_ALLOW_PRIVATE_NETWORKS must be true or false, not "${value}"`,
      });
    }
  });
});

/** The standalone command itself (`npm start` without the build), on an ephemeral port. */
async function startCli(folder: string, env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "lib/standalone/cli.ts"], {
    env: {
      ...process.env,
      MONGODB_URL: "",
      BLOGROLL_DATABASE: path.join(folder, `${Object.keys(env).length}.db`),
      PORT: "0",
      BLOGROLL_ADMIN_TOKEN: TOKEN,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const base = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /listening on (http:\/\/\S+)/.exec(output);
      if (listening) resolve(listening[1]);
    });
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  return { child, base };
}

describe("BLOGROLL_ALLOW_PRIVATE_NETWORKS in the standalone server", () => {
  let site: FixtureServer;
  let folder: string;
  const children: ChildProcess[] = [];
  before(async () => {
    folder = mkdtempSync(path.join(tmpdir(), "blogroll-env-"));
    site = await startFixtureServer();
    site.route(
      "/feed.xml",
      respond.text(
        '<rss version="2.0"><channel><title>On my network</title><link>http://nas.local/</link></channel></rss>',
        { headers: { "content-type": "application/rss+xml" } },
      ),
    );
  });
  after(async () => {
    await Promise.all(children.map((child) => new Promise((resolve) => child.once("exit", resolve).kill("SIGTERM"))));
    await site.close();
    rmSync(folder, { recursive: true, force: true });
  });

  async function discover(env: Record<string, string>): Promise<{ success: boolean; error?: string }> {
    const started = await startCli(folder, env);
    children.push(started.child);
    const response = await fetch(
      `${started.base}/blogrollapi/api/discover?url=${encodeURIComponent(`${site.url}/feed.xml`)}`,
      { headers: { Authorization: `Bearer ${TOKEN}` } },
    );
    return (await response.json()) as { success: boolean; error?: string };
  }

  it("fetches a feed on a loopback address when set to true", async () => {
    const found = await discover({ BLOGROLL_ALLOW_PRIVATE_NETWORKS: "true" });
    assert.equal(found.success, true, JSON.stringify(found));
  });

  it("refuses it when unset, naming the option that allows it", async () => {
    const found = await discover({});
    assert.equal(found.success, false);
    assert.match(found.error ?? "", /allowPrivateNetworks/);
  });

  it("stops the start on a value that is neither true nor false", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "lib/standalone/cli.ts"], {
      env: {
        ...process.env,
        MONGODB_URL: "",
        BLOGROLL_DATABASE: path.join(folder, "bad.db"),
        PORT: "0",
        BLOGROLL_ADMIN_TOKEN: TOKEN,
        BLOGROLL_ALLOW_PRIVATE_NETWORKS: "yes",
      },
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /could not start: BLOGROLL_ALLOW_PRIVATE_NETWORKS must be true or false, not "yes"/);
  });
});
