#!/usr/bin/env node
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import path from "node:path";
import BlogrollEndpoint from "../../index.js";
import { createStandaloneApp, LOGIN_PATH } from "./app.js";
import { ensureSources, readConfigFile, type StandaloneConfig } from "./config-file.js";
import { parseTrustProxy } from "./trust-proxy.js";
import { writeSecretFile } from "./token-file.js";
import { optionsFromEnvironment } from "../options.js";
import { readSourceNow } from "../sources/read-now.js";
import type { Source } from "../storage/types.js";

/**
 * `npm start`: the plugin served on its own. Configuration by environment:
 * PORT, HOST, BLOGROLL_ADMIN_TOKEN, BLOGROLL_CONFIG, BLOGROLL_TRUST_PROXY, and the options' own
 * variables (each descriptor's `env` in lib/options/table.ts).
 */
async function main(): Promise<void> {
  const env = process.env;
  const config: StandaloneConfig = env.BLOGROLL_CONFIG
    ? readConfigFile(env.BLOGROLL_CONFIG)
    : { options: {}, sources: [] };
  // A host option, not the plugin's: the environment wins over the file.
  const { trustProxy: configuredTrust, ...pluginOptions } = config.options;
  const trustProxy = parseTrustProxy(env.BLOGROLL_TRUST_PROXY ?? configuredTrust ?? false);
  const plugin = new BlogrollEndpoint({ ...pluginOptions, ...optionsFromEnvironment(env) });
  let adminToken = env.BLOGROLL_ADMIN_TOKEN ?? "";
  const generated = adminToken === "";
  if (generated) adminToken = randomBytes(18).toString("base64url");

  const { listener } = await createStandaloneApp(plugin, { adminToken, trustProxy });
  const storage = await plugin.getStorage();
  const created = await ensureSources(storage, config.sources);

  const port = Number(env.PORT ?? 3000);
  const host = env.HOST ?? "127.0.0.1";
  const server: Server = await new Promise((resolve, reject) => {
    const listening = createServer(listener).listen(port, host, () => resolve(listening));
    listening.once("error", reject);
  });
  const address = server.address();
  const actualPort = typeof address === "object" && address ? address.port : port;
  const base = `http://${host.includes(":") ? `[${host}]` : host}:${actualPort}`;
  console.log(`indiekit-endpoint-blogroll listening on ${base}`);
  if (created.length > 0) console.log(`sources created from BLOGROLL_CONFIG: ${created.length}`);
  console.log(`public API: ${base}${plugin.mountPath}/api/blogs`);
  console.log(`admin: ${base}${plugin.mountPath} (log in at ${base}${LOGIN_PATH})`);
  if (generated) console.log(announceGeneratedToken(adminToken, path.dirname(plugin.settings.databasePath)));
  // New sources are read, and their blogs fetched, now: not at the first sync, `initialSyncDelay` later.
  void readSourcesNow(plugin, created);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: stopping`);
    server.close();
    server.closeIdleConnections?.();
    try {
      await plugin.destroy();
      process.exit(0);
    } catch (error) {
      console.error(`shutdown failed: ${(error as Error).message}`);
      process.exit(1);
    }
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

/** Reads each source in turn (a failure is recorded on the source, as at any sync, and logged here). */
async function readSourcesNow(plugin: BlogrollEndpoint, sources: Source[]): Promise<void> {
  for (const source of sources) {
    try {
      const outcome = await readSourceNow(plugin.context, source);
      if (outcome?.status === "error") console.warn(`source "${source.name}" could not be read: ${outcome.error}`);
    } catch (error) {
      console.error(
        `source "${source.name}" could not be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

/**
 * Where a generated admin token is shown. On a terminal it is printed: the
 * person starting the server reads it. Otherwise the output likely ends in a
 * collected log, so the token goes to a file only its owner can read
 * (mode 600, next to the database) and the log names the file.
 */
function announceGeneratedToken(token: string, folder: string): string {
  const advice = "generated for this run; set BLOGROLL_ADMIN_TOKEN to keep one";
  if (process.stdout.isTTY) return `admin token (${advice}): ${token}`;
  const file = path.resolve(folder, "admin-token");
  writeSecretFile(file, `${token}\n`);
  return `admin token (${advice}) written to ${file} (readable by this user only)`;
}

main().catch((error: unknown) => {
  console.error(
    `indiekit-endpoint-blogroll could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
});
