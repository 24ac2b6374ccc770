/**
 * Scenario 5: throughput of the parsing pipeline, bytes to normalised,
 * sanitised items (`parseFeed`), on generated feeds and on the shared
 * corpora, against (a) the floor of only tokenising the same bytes
 * (htmlparser2 in XML mode, and saxes) and (b) the earlier plugin's path
 * (feedparser + sanitize-html + sha256, bench/support/legacy-pipeline.ts).
 * Single thread, best of three rounds of at least a second each.
 *
 *   node --import tsx bench/parse.ts [--feeds 150]
 */
import { readdirSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { gunzipSync } from "node:zlib";
import { Parser } from "htmlparser2";
import { SaxesParser } from "saxes";
import { parseFeed } from "../lib/feeds/parse.js";
import { generateFeed } from "./support/feeds.js";
import { legacyParse } from "./support/legacy-pipeline.js";
import { report, round, target, type BenchResult } from "./support/measure.js";

const { values: args } = parseArgs({ options: { feeds: { type: "string", default: "150" } } });

interface Sample {
  name: string;
  bytes: Uint8Array;
  url: string;
  contentType: string | null;
  xml: boolean;
}

const CORPORA = new URL("../../shared/corpora/", import.meta.url).pathname;

function generatedSamples(count: number): Sample[] {
  const now = new Date();
  return Array.from({ length: count }, (_, index) => {
    const feed = generateFeed(index, `h${index % 100}.bench.test`, now);
    return {
      name: `generated/${index}`,
      bytes: new Uint8Array(Buffer.from(feed.body)),
      url: `https://h${index % 100}.bench.test/feed`,
      contentType: feed.contentType,
      xml: feed.format !== "json",
    };
  });
}

/** Every feed in the corpora that the product reads (XML and JSON; gzip inflated as HTTP would). */
function corpusSamples(): Sample[] {
  const samples: Sample[] = [];
  for (const folder of ["node-feedparser", "miniflux"]) {
    for (const file of readdirSync(`${CORPORA}${folder}`)) {
      if (!/\.(xml|atom|json)$/.test(file)) continue;
      const raw = readFileSync(`${CORPORA}${folder}/${file}`);
      const bytes = new Uint8Array(raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw);
      samples.push({
        name: `${folder}/${file}`,
        bytes,
        url: "https://example.com/feed.xml",
        contentType: null,
        xml: !file.endsWith(".json"),
      });
    }
  }
  return samples;
}

type Pipeline = (sample: Sample) => Promise<number> | number;

/** Items per feed from our pipeline; feeds it refuses count as 0 items (and are listed). */
const ours: Pipeline = async (sample) => {
  try {
    return (await parseFeed(sample.bytes, { url: sample.url, contentType: sample.contentType, maxItems: 1000 })).items
      .length;
  } catch {
    return 0;
  }
};

const legacy: Pipeline = async (sample) => {
  try {
    return await legacyParse(sample.bytes, sample.url);
  } catch {
    return 0;
  }
};

const decoder = new TextDecoder();
const tokeniseHtmlparser2: Pipeline = (sample) => {
  new Parser({}, { xmlMode: true, decodeEntities: false }).end(decoder.decode(sample.bytes));
  return 0;
};
const tokeniseSaxes: Pipeline = (sample) => {
  const parser = new SaxesParser();
  parser.on("error", () => undefined);
  parser.write(decoder.decode(sample.bytes)).close();
  return 0;
};

/** Best of three rounds, each going over the samples as often as it takes to fill `minMs`. */
async function measure(
  samples: Sample[],
  pipeline: Pipeline,
  minMs = 1000,
): Promise<{ mbPerS: number; itemsPerS: number; items: number }> {
  const bytes = samples.reduce((sum, sample) => sum + sample.bytes.length, 0);
  let best = { mbPerS: 0, itemsPerS: 0, items: 0 };
  for (let round_ = 0; round_ < 3; round_++) {
    let passes = 0;
    let items = 0;
    const started = performance.now();
    do {
      for (const sample of samples) items += await pipeline(sample);
      passes++;
    } while (performance.now() - started < minMs);
    const seconds = (performance.now() - started) / 1000;
    const mbPerS = (bytes * passes) / 1e6 / seconds;
    if (mbPerS > best.mbPerS)
      best = { mbPerS: round(mbPerS), itemsPerS: Math.round(items / seconds), items: items / passes };
  }
  return best;
}

const generated = generatedSamples(Number(args.feeds));
const corpora = corpusSamples();
const sets: Array<[string, Sample[]]> = [
  ["generated (all formats)", generated],
  ["generated (XML only)", generated.filter((sample) => sample.xml)],
  ["corpora (XML only)", corpora.filter((sample) => sample.xml)],
];

// Warm up every pipeline once so JIT compilation is not what gets measured.
for (const pipeline of [ours, legacy, tokeniseHtmlparser2, tokeniseSaxes])
  await measure(corpora.slice(0, 5), pipeline, 50);

const figures: Record<string, string | number> = {};
const speedups: number[] = [];
for (const [name, samples] of sets) {
  const size = round(samples.reduce((sum, sample) => sum + sample.bytes.length, 0) / 1e6, 2);
  const ourFigures = await measure(samples, ours);
  const floorHtml = await measure(samples, tokeniseHtmlparser2);
  const floorSaxes = await measure(samples, tokeniseSaxes);
  figures[`${name}: ${samples.length} feeds, ${size} MB`] = "";
  figures[`  ours (parseFeed)`] =
    `${ourFigures.mbPerS} MB/s, ${ourFigures.itemsPerS} items/s (${ourFigures.items} items)`;
  figures[`  floor: htmlparser2 tokenise`] = `${floorHtml.mbPerS} MB/s`;
  figures[`  floor: saxes tokenise`] = `${floorSaxes.mbPerS} MB/s`;
  if (samples.every((sample) => sample.xml)) {
    const legacyFigures = await measure(samples, legacy);
    figures[`  earlier pipeline (feedparser + sanitize-html + sha256)`] =
      `${legacyFigures.mbPerS} MB/s, ${legacyFigures.itemsPerS} items/s (${legacyFigures.items} items)`;
    figures[`  speed-up over the earlier pipeline`] = `${round(ourFigures.mbPerS / legacyFigures.mbPerS)}x`;
    speedups.push(ourFigures.mbPerS / legacyFigures.mbPerS);
  }
  // Keys repeat per set: prefix them so every set keeps its lines.
  for (const key of Object.keys(figures)) {
    if (key.startsWith("  ")) {
      figures[`${name} ${key.trim()}`] = figures[key];
      delete figures[key];
    }
  }
}

const result: BenchResult = {
  scenario: "5. Parsing pipeline throughput",
  figures,
  targets: speedups.map((speedup, index) =>
    target(`speed-up over the earlier pipeline (${index === 0 ? "generated XML" : "corpora"})`, speedup, ">=", 3, "x"),
  ),
  notes: ["one thread; maxItems 1000 so both pipelines handle every item; feeds a pipeline refuses count 0 items"],
};
report(result);
