/** Temporary stores and the plugin server for the benchmarks. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import type { Storage } from "../../lib/storage/types.js";

export interface TempStore {
  storage: Storage;
  file: string;
  close(): Promise<void>;
}

/** A fresh SQLite store in a temp folder, removed on close. */
export async function openTempStore(): Promise<TempStore> {
  const dir = mkdtempSync(path.join(tmpdir(), "blogroll-bench-"));
  const file = path.join(dir, "blogroll.db");
  const storage = createSqliteStorage(file);
  await storage.init();
  return {
    storage,
    file,
    close: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Adds one manual blog per feed URL, in `categories` round-robin categories. */
export async function addBlogs(storage: Storage, feedUrls: string[], categories = 50): Promise<void> {
  for (const [index, feedUrl] of feedUrls.entries()) {
    await storage.blogs.upsertFromSource({ feedUrl, title: `Blog ${index}`, source: "manual", category: `Category ${index % categories}` });
  }
}
