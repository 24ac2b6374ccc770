/**
 * The standalone server as a child process (`node --import tsx
 * lib/standalone/cli.ts`), for crash tests: started on an ephemeral port with
 * a SQLite file and a BLOGROLL_CONFIG, killable with any signal.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { openSqliteFile } from "../support/sqlite-file.js";
import { rss, startFeedServer, type FeedServer } from "../sync/feed-server.js";

const REPO = path.resolve(import.meta.dirname, "../..");
export const CHILD_TOKEN = "crash-test-token";

export interface StandaloneProcess {
  child: ChildProcess;
  /** e.g. http://127.0.0.1:40123 */
  base: string;
  output: () => string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
}

/** Starts the CLI (with `env` over the defaults below) and waits for its "listening on" line. */
export async function startStandalone(
  folder: string,
  config: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<StandaloneProcess> {
  const configFile = path.join(folder, "config.json");
  writeFileSync(configFile, JSON.stringify(config));
  const child = spawn(process.execPath, ["--import", "tsx", "lib/standalone/cli.ts"], {
    cwd: REPO,
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      BLOGROLL_DATABASE: path.join(folder, "blogroll.db"),
      BLOGROLL_CONFIG: configFile,
      BLOGROLL_ADMIN_TOKEN: CHILD_TOKEN,
      MONGODB_URL: "",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const base = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        child.stdout!.off("data", check);
        resolve(match[1]);
      }
    };
    child.stdout!.on("data", check);
    void exited.then((code) => reject(new Error(`standalone server exited (${code}) before listening:\n${output}`)));
  });
  return { child, base, output: () => output, exited };
}

/** SIGKILL: no shutdown handler runs, nothing is flushed. */
export async function killHard(server: StandaloneProcess): Promise<void> {
  server.child.kill("SIGKILL");
  await server.exited;
}

export interface FeedFarm {
  server: FeedServer;
  opmlUrl: string;
  count: number;
  /** Feed requests answered so far. */
  feedHits(): number;
}

/** `count` small RSS feeds, each answered after `delayMs`, and an OPML listing them all in 5 categories. */
export async function startFeedFarm(count: number, delayMs: number): Promise<FeedFarm> {
  const server = await startFeedServer();
  const origin = server.origins[0];
  let hits = 0;
  const published = new Date(Math.floor(Date.now() / 1000) * 1000 - 3600_000);
  for (let index = 0; index < count; index++) {
    const body = rss(
      [1, 2, 3].map((n) => ({ guid: `feed${index}-item${n}`, published: new Date(published.getTime() - n * 60_000) })),
      { title: `Feed ${index}` },
    );
    server.route(`/feeds/${index}.xml`, (_request, response) => {
      setTimeout(() => {
        hits++;
        response.writeHead(200, { "content-type": "application/rss+xml" }).end(body);
      }, delayMs);
    });
  }
  const outlines = Array.from(
    { length: count },
    (_, index) =>
      `<outline type="rss" text="Feed ${index}" category="Group ${index % 5}" xmlUrl="${origin}/feeds/${index}.xml"/>`,
  );
  const opml = `<?xml version="1.0"?><opml version="2.0"><head><title>Farm</title></head><body>${outlines.join("")}</body></opml>`;
  server.route(
    "/list.opml",
    (_request, response) => void response.writeHead(200, { "content-type": "text/x-opml" }).end(opml),
  );
  return { server, opmlUrl: `${origin}/list.opml`, count, feedHits: () => hits };
}

/** The BLOGROLL_CONFIG of a server that syncs the farm's OPML at once, 8 feeds at a time. */
export function farmConfig(farm: FeedFarm, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    allowPrivateNetworks: true,
    initialSyncDelay: 0,
    syncInterval: 3_600_000,
    concurrency: 8,
    perHostConcurrency: 8,
    fetchTimeout: 5000,
    sources: [{ type: "opml_url", name: "Farm", url: farm.opmlUrl }],
    ...overrides,
  };
}

/** For a test file: a feed farm and a temporary folder, handed to `take` before its tests and removed after. */
export function useFarmAndFolder(count: number, prefix: string, take: (farm: FeedFarm, folder: string) => void): void {
  let farm: FeedFarm | null = null;
  let folder: string | null = null;
  before(async () => {
    farm = await startFeedFarm(count, 30);
    folder = mkdtempSync(path.join(tmpdir(), prefix));
    take(farm, folder);
  });
  after(async () => {
    await farm?.server.close();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });
}

/** Waits until `condition` holds, polling; fails after `limitMs` with `what`. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  limitMs = 30_000,
): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface DatabaseCheck {
  integrity: string;
  blogs: number;
  duplicateItems: number;
  itemsPerBlogOverThree: number;
}

/** Opens the SQLite file (recovering its WAL, as the next start would) and checks it. Only while no server runs. */
export function checkDatabase(file: string): DatabaseCheck {
  const db = openSqliteFile(file, { fileMustExist: true });
  try {
    const integrity = (db.pragma("integrity_check", { simple: true }) as string) ?? "";
    const blogs = (db.prepare("SELECT count(*) AS n FROM blogs").get() as { n: number }).n;
    const duplicateItems = (
      db
        .prepare("SELECT count(*) AS n FROM (SELECT blog_id, uid FROM items GROUP BY blog_id, uid HAVING count(*) > 1)")
        .get() as { n: number }
    ).n;
    const itemsPerBlogOverThree = (
      db
        .prepare("SELECT count(*) AS n FROM (SELECT blog_id FROM items GROUP BY blog_id HAVING count(*) > 3)")
        .get() as { n: number }
    ).n;
    return { integrity, blogs, duplicateItems, itemsPerBlogOverThree };
  } finally {
    db.close();
  }
}
