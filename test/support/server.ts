import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Express } from "express";
import BlogrollEndpoint from "../../index.js";
import { createStandaloneApp } from "../../lib/standalone/app.js";
import { COLLECTION_NAMES } from "../../lib/storage/open.js";
import { createSqliteStorage } from "../../lib/storage/sqlite/index.js";
import type { Storage } from "../../lib/storage/types.js";
import type { Logger } from "../../lib/context.js";
import type { createFakeDb, LoggedQuery } from "./fake-mongo.js";

export type Backend = "sqlite" | "mongo-standin" | "mongodb";

/** Backends the HTTP suites run on: SQLite always, the mingo stand-in always, a real server when MONGODB_URL is set. */
export function httpBackends(): Backend[] {
  return process.env.MONGODB_URL ? ["sqlite", "mongo-standin", "mongodb"] : ["sqlite", "mongo-standin"];
}

export function describeBackend(backend: Backend): string {
  switch (backend) {
    case "sqlite":
      return "SQLite (better-sqlite3 file)";
    case "mongo-standin":
      return "MongoDB adapter on the mingo in-memory stand-in (not a real MongoDB server)";
    case "mongodb":
      return "MongoDB server at MONGODB_URL";
  }
}

export const ADMIN_TOKEN = "test-admin-token";

export interface TestServer {
  baseUrl: string;
  api: string;
  plugin: BlogrollEndpoint;
  /** The standalone host's Express application (push callbacks are answered ahead of it). */
  app: Express;
  /** The HTTP server it listens with (its "request" event tells when a request has arrived). */
  http: Server;
  storage: Storage;
  /** The host collection Map (mongo-standin only): add Microsub collections here. */
  collections: Map<string, unknown>;
  fakeDb: ReturnType<typeof createFakeDb> | null;
  logs: string[];
  get(pathname: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** A logger that keeps messages for assertions instead of printing them. */
export function memoryLogger(logs: string[]): Logger {
  return {
    info: (message) => logs.push(`info: ${message}`),
    warn: (message) => logs.push(`warn: ${message}`),
    error: (message, error) => logs.push(`error: ${message}${error instanceof Error ? `: ${error.message}` : ""}`),
  };
}

/**
 * Starts the plugin in the standalone host on an ephemeral loopback port,
 * on the chosen backend, with the scheduler off (tests drive syncs).
 * `sharing` puts it on another test server's stand-in database (a second
 * process behind the same MongoDB, as far as the stand-in can show one).
 */
export async function startTestServer(
  backend: Backend,
  pluginOptions: Record<string, unknown> = {},
  sharing?: TestServer,
  serverOptions: { onMongoQuery?: (query: LoggedQuery) => void } = {},
): Promise<TestServer> {
  const folder = mkdtempSync(path.join(tmpdir(), "blogroll-test-"));
  const collections = new Map<string, unknown>();
  let fakeDb: ReturnType<typeof createFakeDb> | null = null;
  const options: Record<string, unknown> = { scheduler: false, allowPrivateNetworks: true, ...pluginOptions };
  if (backend === "sqlite") {
    options.databasePath = path.join(folder, "blogroll.db");
    options.mongodbUrl = null;
  } else if (backend === "mongo-standin") {
    // Loaded only here: the stand-in brings the MongoDB driver, BSON and mingo, which a server on SQLite never
    // loads (bench/scale.ts measures the memory of one).
    fakeDb = sharing?.fakeDb ?? (await import("./fake-mongo.js")).createFakeDb({ onQuery: serverOptions.onMongoQuery });
    for (const name of Object.values(COLLECTION_NAMES)) collections.set(name, fakeDb.collection(name));
  } else {
    const url = new URL(process.env.MONGODB_URL as string);
    url.pathname = `/blogroll_test_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
    options.mongodbUrl = url.toString();
  }
  const logs: string[] = [];
  const plugin = new BlogrollEndpoint(options, memoryLogger(logs));
  const { app, listener } = await createStandaloneApp(plugin, { adminToken: ADMIN_TOKEN, collections });
  const storage = await plugin.getStorage();
  const server: Server = await new Promise((resolve) => {
    const listening = createServer(listener).listen(0, "127.0.0.1", () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const api = `${baseUrl}${plugin.mountPath}/api`;
  return {
    baseUrl,
    api,
    plugin,
    app,
    http: server,
    storage,
    collections,
    fakeDb,
    logs,
    get: (pathname, init) => fetch(pathname.startsWith("http") ? pathname : `${baseUrl}${pathname}`, init),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      if (backend === "mongodb") {
        // Each test run gets its own database; drop it when done.
        const { MongoClient } = await import("mongodb");
        const client = await MongoClient.connect(options.mongodbUrl as string);
        await client
          .db()
          .dropDatabase()
          .catch(() => undefined);
        await client.close();
      }
      await plugin.destroy();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A writer of this process sharing a test server's database, whose writes the server learns of only as another process's. */
export interface OtherWriter {
  storage: Storage;
  close(): Promise<void>;
}

/** Another writer: a second connection to the server's SQLite file, or a second plugin instance on its stand-in. */
export async function startOtherWriter(server: TestServer, backend: Backend): Promise<OtherWriter> {
  if (backend === "sqlite") {
    const storage = createSqliteStorage((server.plugin.settings as { databasePath: string }).databasePath);
    await storage.init();
    return { storage, close: () => storage.close() };
  }
  const other = await startTestServer(backend, {}, server);
  return { storage: other.storage, close: () => other.close() };
}

/** The Microsub plugin's collections, empty, made visible to the plugin (mongo-standin only). */
export function installMicrosubCollections(server: TestServer) {
  const db = server.fakeDb;
  if (!db) throw new Error("the Microsub collections need the mongo stand-in");
  const collections = {
    channels: db.collection("microsub_channels"),
    feeds: db.collection("microsub_feeds"),
    items: db.collection("microsub_items"),
  };
  server.collections.set("microsub_channels", collections.channels);
  server.collections.set("microsub_feeds", collections.feeds);
  server.collections.set("microsub_items", collections.items);
  return collections;
}
