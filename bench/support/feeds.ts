/**
 * Deterministic generator of realistic feeds for the benchmarks: RSS 2.0,
 * Atom 1.0, RSS 1.0 (RDF) and JSON Feed, 20–50 items, 20–200 KB each, with
 * the things real feeds carry (HTML content with links, images, entities,
 * CDATA, relative URLs, categories, authors, dates in the last few days).
 * The same index always gives the same bytes, so runs compare.
 */
import { DAY, HOUR } from "../../lib/time/durations.js";

/** Mulberry32: a tiny seeded PRNG (benchmarks must not depend on Math.random). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type GeneratedFormat = "rss" | "atom" | "rdf" | "json";

export interface GeneratedFeed {
  index: number;
  format: GeneratedFormat;
  contentType: string;
  body: string;
  items: number;
}

const WORDS = (
  "the of and to in is that it for on with as was at by an be this from or have not are but had his they you " +
  "indieweb blog post feed syndication webmention microformats static site generator javascript typescript node " +
  "garden notes reading links week photos travel coffee bicycle library garden rain morning evening thoughts " +
  "écrire café naïve straße 東京 ünïcödé — “quoted” ‘single’ … release notes performance database sqlite"
).split(" ");

/** Picks a format with a realistic mix: RSS most, then Atom, RDF and JSON Feed. */
function formatFor(index: number, random: () => number): GeneratedFormat {
  const roll = (index * 7919 + Math.floor(random() * 100)) % 100;
  if (roll < 55) return "rss";
  if (roll < 80) return "atom";
  if (roll < 90) return "rdf";
  return "json";
}

function words(random: () => number, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]);
  return out.join(" ");
}

/** A paragraph of HTML with the usual inline markup, entities and the odd relative URL. */
function paragraph(random: () => number, host: string): string {
  const roll = random();
  const text = words(random, 30 + Math.floor(random() * 60));
  if (roll < 0.15)
    return `<p>${text} <a href="/posts/${Math.floor(random() * 1e6)}">a relative link</a> &amp; more.</p>`;
  if (roll < 0.3)
    return `<p><img src="https://${host}/img/${Math.floor(random() * 1e6)}.jpg" alt="photo" width="640" height="480"> ${text}</p>`;
  if (roll < 0.4) return `<blockquote><p>${text}</p></blockquote>`;
  if (roll < 0.5) return `<pre><code>const x = a &lt; b &amp;&amp; c &gt; d; // ${text.slice(0, 60)}</code></pre>`;
  if (roll < 0.55) return `<p style="color:red" onclick="alert(1)">${text}</p><script>track()</script>`;
  if (roll < 0.65) return `<ul><li>${text.slice(0, 80)}</li><li><em>${text.slice(80, 160)}</em></li></ul>`;
  return `<p>${text} <strong>${words(random, 3)}</strong> <a href="https://example.org/${Math.floor(random() * 1e6)}?a=1&amp;b=2">link</a>.</p>`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

interface DraftItem {
  id: string;
  url: string;
  title: string;
  html: string;
  summary: string;
  date: Date;
  author: string;
  categories: string[];
}

export interface FeedSite {
  /** The blog's home page, as the feed links to it (default `https://<host>/blog<index>/`). */
  url?: string;
  /** Whether the feed names an image (RSS `<image>`, Atom `<icon>`, JSON Feed `icon`); default true. */
  images?: boolean;
}

/**
 * Feed number `index` (0-based) for `host`. `now` anchors item dates (the
 * newest a few hours before it) so they survive the 7-day retention.
 */
export function generateFeed(index: number, host: string, now: Date, siteOptions: FeedSite = {}): GeneratedFeed {
  const random = seededRandom(index + 1);
  const format = formatFor(index, random);
  const itemCount = 20 + Math.floor(random() * 31);
  const targetBytes = 20_000 + Math.floor(random() * 180_000);
  // Escaped HTML grows by about a fifth; aim the raw HTML a little under the target.
  const perItem = Math.max(300, Math.floor((targetBytes / itemCount) * 0.82) - 450);
  const site = siteOptions.url ?? `https://${host}/blog${index}/`;
  const images = siteOptions.images ?? true;
  const items: DraftItem[] = [];
  for (let i = 0; i < itemCount; i++) {
    let html = "";
    while (html.length < perItem) html += paragraph(random, host);
    const title = `${words(random, 4 + Math.floor(random() * 6))} #${i}`;
    items.push({
      id: `${site}posts/${i}`,
      url: i % 5 === 0 ? `posts/${i}` : `${site}posts/${i}`,
      title: i % 7 === 0 ? `${title} & “friends”` : title,
      html,
      summary: words(random, 25),
      date: new Date(now.getTime() - Math.floor((i + random()) * ((5 * DAY) / itemCount)) - HOUR),
      author: `Author ${index % 37}`,
      categories: [words(random, 1), words(random, 1)],
    });
  }
  const feedTitle = `Blog number ${index}: ${words(random, 3)}`;
  switch (format) {
    case "rss":
      return {
        index,
        format,
        items: itemCount,
        contentType: "application/rss+xml; charset=utf-8",
        body: rss(feedTitle, site, items, images),
      };
    case "atom":
      return {
        index,
        format,
        items: itemCount,
        contentType: "application/atom+xml; charset=utf-8",
        body: atom(feedTitle, site, items, images),
      };
    case "rdf":
      return {
        index,
        format,
        items: itemCount,
        contentType: "application/rdf+xml; charset=utf-8",
        body: rdf(feedTitle, site, items),
      };
    case "json":
      return {
        index,
        format,
        items: itemCount,
        contentType: "application/feed+json; charset=utf-8",
        body: jsonFeed(feedTitle, site, items, images),
      };
  }
}

function rss(title: string, site: string, items: DraftItem[], images: boolean): string {
  const entries = items.map(
    (item, i) =>
      `<item><title>${escapeXml(item.title)}</title><link>${escapeXml(item.url)}</link>` +
      `<guid isPermaLink="${i % 3 === 0 ? "true" : "false"}">${escapeXml(item.id)}</guid>` +
      `<pubDate>${item.date.toUTCString()}</pubDate><dc:creator>${escapeXml(item.author)}</dc:creator>` +
      item.categories.map((c) => `<category>${escapeXml(c)}</category>`).join("") +
      `<description>${escapeXml(item.summary)}</description>` +
      // Half CDATA, half escaped HTML: both are common.
      (i % 2 === 0
        ? `<content:encoded><![CDATA[${item.html}]]></content:encoded>`
        : `<content:encoded>${escapeXml(item.html)}</content:encoded>`) +
      `</item>\n`,
  );
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" ` +
    `xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">\n<channel><title>${escapeXml(title)}</title>` +
    `<link>${site}</link><description>A benchmark blog &amp; its feed</description><language>en</language>` +
    `<atom:link rel="self" type="application/rss+xml" href="${site}feed.xml"/>` +
    (images ? `<image><url>${site}logo.png</url><title>${escapeXml(title)}</title><link>${site}</link></image>` : "") +
    `\n${entries.join("")}</channel></rss>\n`
  );
}

function atom(title: string, site: string, items: DraftItem[], images: boolean): string {
  const entries = items.map(
    (item, i) =>
      `<entry><title type="html">${escapeXml(escapeXml(item.title))}</title><link rel="alternate" href="${escapeXml(item.url)}"/>` +
      `<id>${escapeXml(item.id)}</id><published>${item.date.toISOString()}</published><updated>${item.date.toISOString()}</updated>` +
      `<author><name>${escapeXml(item.author)}</name></author>` +
      item.categories.map((c) => `<category term="${escapeXml(c)}"/>`).join("") +
      `<summary type="text">${escapeXml(item.summary)}</summary>` +
      (i % 2 === 0
        ? `<content type="html"><![CDATA[${item.html}]]></content>`
        : `<content type="html">${escapeXml(item.html)}</content>`) +
      `</entry>\n`,
  );
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom" xml:base="${site}">` +
    `<title>${escapeXml(title)}</title><link rel="alternate" href="${site}"/><link rel="self" href="${site}atom.xml"/>` +
    `<id>${site}</id><updated>${items[0].date.toISOString()}</updated>${images ? "<icon>/favicon.png</icon>" : ""}\n${entries.join("")}</feed>\n`
  );
}

function rdf(title: string, site: string, items: DraftItem[]): string {
  const entries = items.map(
    (item) =>
      `<item rdf:about="${escapeXml(item.id)}"><title>${escapeXml(item.title)}</title><link>${escapeXml(item.id)}</link>` +
      `<dc:date>${item.date.toISOString()}</dc:date><dc:creator>${escapeXml(item.author)}</dc:creator>` +
      `<dc:subject>${escapeXml(item.categories[0])}</dc:subject>` +
      `<description>${escapeXml(item.summary)}</description><content:encoded><![CDATA[${item.html}]]></content:encoded></item>\n`,
  );
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" ` +
    `xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:content="http://purl.org/rss/1.0/modules/content/">\n` +
    `<channel rdf:about="${site}"><title>${escapeXml(title)}</title><link>${site}</link><description>RDF benchmark blog</description>` +
    `<items><rdf:Seq>${items.map((item) => `<rdf:li rdf:resource="${escapeXml(item.id)}"/>`).join("")}</rdf:Seq></items></channel>\n` +
    `${entries.join("")}</rdf:RDF>\n`
  );
}

function jsonFeed(title: string, site: string, items: DraftItem[], images: boolean): string {
  return JSON.stringify({
    version: "https://jsonfeed.org/version/1.1",
    title,
    home_page_url: site,
    feed_url: `${site}feed.json`,
    icon: images ? `${site}icon.png` : undefined,
    authors: [{ name: items[0].author }],
    items: items.map((item) => ({
      id: item.id,
      url: item.url,
      title: item.title,
      content_html: item.html,
      summary: item.summary,
      date_published: item.date.toISOString(),
      authors: [{ name: item.author }],
      tags: item.categories,
    })),
  });
}

/**
 * The home page of blog `index` at `site`: a realistic head (meta, styles,
 * the feed's alternate link and, when `withIcon`, a `<link rel="icon">`)
 * and a body of recent posts, about 20 KB.
 */
export function generateHomePage(index: number, site: string, withIcon: boolean, blogroll?: string): string {
  const random = seededRandom(index + 7919);
  const icon =
    (withIcon ? `<link rel="icon" href="${site}icon.png" sizes="32x32">` : "") +
    (blogroll ? `<link rel="blogroll" type="text/xml" href="${blogroll}">` : "");
  const head =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>Blog number ${index}</title><meta name="description" content="${words(random, 20)}">` +
    `<link rel="stylesheet" href="${site}style.css"><link rel="alternate" type="application/rss+xml" href="${site}feed.xml">${icon}` +
    `<style>${"body{margin:0 auto;max-width:40em;font:1.1em/1.5 serif}h1,h2{line-height:1.2}a{color:#06c}".repeat(20)}</style></head>`;
  let body = `<body><header><h1>Blog number ${index}</h1><nav><a href="${site}">Home</a> <a href="${site}about/">About</a></nav></header><main>`;
  while (body.length < 20_000)
    body += `<article><h2><a href="${site}posts/${Math.floor(random() * 1e6)}">${words(random, 6)}</a></h2>${paragraph(random, "example.org")}</article>`;
  return `${head}${body}</main></body></html>\n`;
}
