import { readFileSync } from "node:fs";
import { nameOfAddress } from "../sources/naming.js";
import type { NewSource, Source, SourceType, Storage } from "../storage/types.js";

const SOURCE_TYPES: SourceType[] = ["opml_url", "opml_file", "manual", "feedland", "microsub", "blogroll"];

/**
 * A source to ensure at start, e.g. `{ "type": "opml_url", "name": "My list", "url": "https://…" }`
 * or `{ "type": "blogroll", "url": "friend.example" }` (a blogroll source's name defaults to the site's host).
 */
export interface SourceSpec {
  type: SourceType;
  name: string;
  [setting: string]: unknown;
}

export interface StandaloneConfig {
  options: Record<string, unknown>;
  sources: SourceSpec[];
}

export class ConfigFileError extends Error {
  constructor(message: string) {
    super(`BLOGROLL_CONFIG: ${message}`);
    this.name = "ConfigFileError";
  }
}

/**
 * Reads the BLOGROLL_CONFIG file: a JSON object whose keys are plugin
 * options, plus an optional `sources` array of sources to ensure at start.
 */
export function readConfigFile(file: string): StandaloneConfig {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ConfigFileError(`cannot read ${file}: ${(error as Error).message}`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    throw new ConfigFileError("must hold a JSON object");
  const { sources = [], ...options } = data as Record<string, unknown>;
  if (!Array.isArray(sources)) throw new ConfigFileError('"sources" must be an array');
  sources.forEach((source, index) => {
    const spec = source as Partial<SourceSpec> | null;
    if (!spec || typeof spec !== "object" || !SOURCE_TYPES.includes(spec.type as SourceType)) {
      throw new ConfigFileError(`sources[${index}].type must be one of ${SOURCE_TYPES.join(", ")}`);
    }
    if (spec.type === "blogroll" && spec.name === undefined) {
      if (typeof spec.url !== "string" || spec.url.trim() === "")
        throw new ConfigFileError(`sources[${index}].url must be the site's address`);
      spec.name = nameOfAddress(spec.url);
    }
    if (typeof spec.name !== "string" || spec.name.trim() === "")
      throw new ConfigFileError(`sources[${index}].name must be a non-empty string`);
  });
  return { options, sources: sources as SourceSpec[] };
}

/** What makes two sources the same: type plus URL (or screen name, channel, name). */
function identity(type: string, settings: Record<string, string>, name: string): string {
  return `${type}\n${settings.url ?? settings.screenName ?? settings.channelUid ?? name}`.toLowerCase();
}

/** Creates the configured sources that do not exist yet (idempotent). Returns those it created. */
export async function ensureSources(storage: Storage, specs: SourceSpec[]): Promise<Source[]> {
  const existing = new Set(
    (await storage.sources.list()).map((source) => identity(source.type, source.settings, source.name)),
  );
  const created: Source[] = [];
  for (const { type, name, ...rest } of specs) {
    const settings = Object.fromEntries(
      Object.entries(rest).filter(([, value]) => typeof value === "string"),
    ) as Record<string, string>;
    const key = identity(type, settings, name);
    if (existing.has(key)) continue;
    const source: NewSource = { type, name: name.trim(), enabled: rest.enabled !== false, settings };
    created.push(await storage.sources.create(source));
    existing.add(key);
  }
  return created;
}
