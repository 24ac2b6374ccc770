/** Shared set-up of the sync tests: a real SQLite file in a temp folder, blogs, options. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { defaultOptions, type BlogrollOptions } from "../../lib/options.js";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import type { Blog, Storage } from "../../lib/storage/types.js";

export interface TempStorage {
  storage: Storage;
  file: string;
  cleanup(): Promise<void>;
}

export async function openTempStorage(): Promise<TempStorage> {
  const dir = mkdtempSync(path.join(tmpdir(), "blogroll-sync-"));
  const file = path.join(dir, "blogroll.db");
  const storage = createSqliteStorage(file);
  await storage.init();
  return {
    storage,
    file,
    cleanup: async () => {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function testOptions(overrides: Partial<BlogrollOptions> = {}): BlogrollOptions {
  return { ...defaultOptions, allowPrivateNetworks: true, fetchTimeout: 10_000, ...overrides };
}

/** Adds a blog as the add form does: the owner lists it, `title` stands for the feed's until its first fetch. */
export async function addBlog(storage: Storage, feedUrl: string, title = feedUrl): Promise<Blog> {
  return (await storage.blogs.upsertFromSource({ feedUrl, feed: { title }, source: "manual" })).blog;
}

export async function reload(storage: Storage, blog: Blog): Promise<Blog> {
  const current = await storage.blogs.get(blog.id);
  if (!current) throw new Error(`blog ${blog.id} vanished`);
  return current;
}
