/** The standalone server validates the schedule options of its BLOGROLL_CONFIG file like the plugin does. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

test("a config file whose maxFetchInterval is below minFetchInterval stops the start with a clear message", () => {
  const folder = mkdtempSync(path.join(tmpdir(), "blogroll-config-"));
  try {
    const config = path.join(folder, "config.json");
    writeFileSync(config, JSON.stringify({ minFetchInterval: 7_200_000, maxFetchInterval: 3_600_000 }));
    const result = spawnSync(process.execPath, ["--import", "tsx", "lib/standalone/cli.ts"], {
      env: {
        ...process.env,
        BLOGROLL_CONFIG: config,
        BLOGROLL_DATABASE: path.join(folder, "db.sqlite"),
        PORT: "0",
        BLOGROLL_ADMIN_TOKEN: "x".repeat(40),
      },
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(result.status, 1);
    assert.match(
      result.stderr,
      /could not start: indiekit-endpoint-blogroll: option "maxFetchInterval" must be at least minFetchInterval/,
    );
    assert.doesNotMatch(result.stderr, / {4}at /, "no stack trace");
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
