/**
 * Manual check: how much of Python feedparser's own test suite this parser
 * passes. Each case there is a small feed with a Python expression that the
 * parse result must satisfy (`Expect: entries[0]['title'] == '...'`). Our
 * `parseFeed` output is mapped onto feedparser's key names and the
 * expressions are evaluated by python3 (bench/support/feedparser-expect.py),
 * since they are Python. A case that asks for something this product does
 * not keep (rights, geo, enclosures, detail types, ...) is "not applicable"
 * and left out of the rate; see the mapping in that script.
 *
 *   node --import tsx bench/feedparser-suite.ts <feedparser checkout>/tests [--verbose]
 *
 * Needs python3 and a checkout of https://github.com/kurtmckee/feedparser
 * (not shipped here). Only `wellformed/` is read. Cases with "http" in their
 * path are about the HTTP response (Content-Location, the document's
 * address): as feedparser's own runner does, they are served with the
 * headers their comment names, from http://127.0.0.1:8097/tests/… (the
 * address their expectations hold), and go through this product's fetch and
 * parse as a feed would.
 *
 * The product stores an exact repeat of a post once; several cases repeat an
 * entry to check it twice (in another element order). When the parse keeps
 * fewer items than the document has entries, each entry is read on its own
 * (the document with the other entries left out), so every entry's fields
 * are checked.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parseFeed } from "../lib/feeds/parse.js";
import type { ParsedFeed } from "../lib/feeds/types.js";
import { fetchUrl } from "../lib/http/fetch.js";

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: { verbose: { type: "boolean", default: false } },
});
const testsDir = positionals[0];
if (!testsDir) {
  console.error("usage: node --import tsx bench/feedparser-suite.ts <feedparser>/tests [--verbose]");
  process.exit(2);
}

function xmlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".xml"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** The port feedparser's runner serves its HTTP cases on; their expectations name it. */
const HTTP_PORT = 8097;
const HEADER_RE = /^Header:\s+([^:]+):(.*)$/gm;

/** Serves each HTTP case at /tests/wellformed/…, with the headers written in its comment (Content-Type text/xml unless named). */
async function startCaseServer(root: string) {
  const server = createServer((request, response) => {
    const file = path.join(root, decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname));
    if (!file.startsWith(root + path.sep)) return void response.writeHead(404).end();
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      return void response.writeHead(404).end();
    }
    const headers: Record<string, string> = { "content-type": "text/xml" };
    for (const [, name, value] of bytes.toString("latin1").matchAll(HEADER_RE))
      headers[name.trim().toLowerCase()] = value.trim();
    response.writeHead(200, headers).end(bytes);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(HTTP_PORT, "127.0.0.1", resolve));
  return server;
}

/**
 * How the product reads a case: an HTTP case is fetched over loopback and
 * parsed with what the sync passes on (lib/sync/fetch-blog.ts); the others
 * are parsed as bytes from a feed address.
 */
async function reader(file: string, url: string, overHttp: boolean) {
  const maxItems = 1000;
  if (!overHttp)
    return {
      body: new Uint8Array(readFileSync(file)),
      parse: (body: Uint8Array | string) => parseFeed(body, { url, maxItems }),
    };
  const response = await fetchUrl(url, { timeout: 5000, maxBodySize: 10_000_000, allowPrivateNetworks: true });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
  const { contentType, contentLocation, contentLanguage } = response;
  return {
    body: response.body,
    parse: (body: Uint8Array | string) =>
      parseFeed(body, { url: response.url, contentType, contentLocation, contentLanguage, maxItems }),
  };
}

const ENTRY_RE = /<(entry|item)\b[^>]*>[\s\S]*?<\/\1>/g;

/** Each entry read on its own, when the parse kept fewer items than the document has entries (exact repeats are stored once). */
async function perEntry(
  text: string,
  parsed: ParsedFeed,
  parse: (text: string) => Promise<ParsedFeed>,
): Promise<ParsedFeed> {
  const entries = [...text.matchAll(ENTRY_RE)];
  if (entries.length <= parsed.items.length) return parsed;
  const items = [];
  for (const entry of entries) {
    const alone = text.replace(ENTRY_RE, (match) => (match === entry[0] ? match : ""));
    items.push(...(await parse(alone)).items);
  }
  return { ...parsed, items };
}

const root = path.resolve(testsDir, "..");
let server: Awaited<ReturnType<typeof startCaseServer>> | null = null;
try {
  server = await startCaseServer(root);
} catch (error) {
  console.error(
    `HTTP cases skipped: cannot listen on 127.0.0.1:${HTTP_PORT} (${error instanceof Error ? error.message : error})`,
  );
}

const cases = [];
for (const file of xmlFiles(path.join(testsDir, "wellformed"))) {
  const name = path.relative(testsDir, file);
  const overHttp = name.includes("http");
  if (overHttp && !server) continue;
  const url = overHttp
    ? `http://127.0.0.1:${HTTP_PORT}/${path.relative(root, file).split(path.sep).join("/")}`
    : "http://feedparser.test/feed.xml";
  try {
    const { body, parse } = await reader(file, url, overHttp);
    const parsed = await perEntry(Buffer.from(body).toString("utf8"), await parse(body), parse);
    cases.push({ name, file, parsed });
  } catch (error) {
    cases.push({ name, file, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  }
}
server?.close();

const script = fileURLToPath(new URL("support/feedparser-expect.py", import.meta.url));
const run = spawnSync("python3", [script, ...(args.verbose ? ["--verbose"] : [])], {
  input: JSON.stringify(cases),
  encoding: "utf8",
  maxBuffer: 64 * 1024 * 1024,
});
process.stdout.write(run.stdout);
process.stderr.write(run.stderr);
process.exit(run.status ?? 1);
