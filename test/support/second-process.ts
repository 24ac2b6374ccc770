/**
 * The plugin served by a second process (serve-sqlite.ts) on a fresh SQLite
 * file, and a storage of this process on the same file: two writers of one
 * database, for tests of what crosses processes.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import type { Storage } from "../../lib/storage/types.js";

const SERVE_SQLITE = fileURLToPath(new URL("./serve-sqlite.ts", import.meta.url));

export interface SecondProcess {
  /** The second process's plugin: base URL plus mount path. */
  mountUrl: string;
  /** This process's storage on the shared file. */
  writer: Storage;
  stop(): Promise<void>;
}

export async function startSecondProcess(): Promise<SecondProcess> {
  const folder = mkdtempSync(path.join(tmpdir(), "blogroll-second-process-"));
  const file = path.join(folder, "blogroll.db");
  const writer = createSqliteStorage(file);
  await writer.init();
  const child = spawn(process.execPath, ["--import", "tsx", SERVE_SQLITE], {
    env: { ...process.env, BLOGROLL_DATABASE: file },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let mountUrl = "";
  for await (const line of createInterface({ input: child.stdout! })) {
    if (!line.startsWith("listening ")) continue;
    const [, base, mount] = line.split(" ");
    mountUrl = `${base}${mount}`;
    break;
  }
  child.stdout!.resume();
  if (!mountUrl) throw new Error("the second process stopped before it listened");
  return {
    mountUrl,
    writer,
    async stop() {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
      await writer.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
