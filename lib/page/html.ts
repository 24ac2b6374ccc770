import { backgroundTurn } from "./turns.js";
import type { Blog, Item } from "../storage/types.js";
import type { BlogrollData, PageBlog } from "./blogroll.js";
import { MAX_PAGE_BLOGS } from "./snapshots.js";
import { BoundedMap } from "./cache.js";
import { fullDate, humanDate, relativeDate } from "./dates.js";
import { httpUrl } from "../url/http-url.js";
import { escapeHtml } from "./escape.js";
import { PAGE_CSS } from "./styles.js";

/** Translates a catalog key of the page's language (lib/standalone/i18n.ts). */
export type Translate = (key: string, vars?: Record<string, unknown>) => string;

export interface RenderContext {
  locale: string;
  __: Translate;
  /** Dates are written relative to this moment. */
  now: number;
}

/** The media type a feed link announces, by the format its last fetch found. */
const FEED_TYPES: Record<string, string> = {
  rss: "application/rss+xml",
  atom: "application/atom+xml",
  json: "application/feed+json",
  hfeed: "text/html",
};

const attribute = (name: string, value: string | null | undefined) => (value ? ` ${name}="${escapeHtml(value)}"` : "");

/** A link when the address is usable, else the text alone; `classes` on either. */
function link(href: string | null, text: string, classes: string, extra = ""): string {
  const url = httpUrl(href);
  return url
    ? `<a class="${classes}" href="${escapeHtml(url)}"${extra}>${escapeHtml(text)}</a>`
    : `<span class="${classes.replace(/ ?\bu-url\b/, "")}">${escapeHtml(text)}</span>`;
}

/** A title for a post without one (notes): the start of its summary, else its address (as the widget does). */
export function postTitle(post: Pick<Item, "title" | "summary" | "url">): string {
  if (post.title) return post.title;
  const summary = (post.summary ?? "").trim();
  if (summary) return summary.length > 80 ? `${summary.slice(0, 79).trimEnd()}…` : summary;
  return post.url ?? "";
}

function time(date: Date, text: string, classes: string, render: RenderContext): string {
  return `<time class="${classes}" datetime="${date.toISOString()}" title="${escapeHtml(fullDate(date, render.locale))}">${escapeHtml(text)}</time>`;
}

/** A post as an h-entry: its linked title (u-url p-name) and its date (dt-published). */
function postEntry(post: Item, render: RenderContext): string {
  const title = link(post.url, postTitle(post), "blogroll__post u-url p-name");
  const date = post.published
    ? ` ${time(post.published, humanDate(post.published, render.now, render.locale), "blogroll__date dt-published", render)}`
    : "";
  return `${title}${date}`;
}

/** A blog's picture (u-photo), or its letter tile, hidden from screen readers: the name follows it. */
function icon(photo: string | null, title: string): string {
  const url = httpUrl(photo);
  if (url)
    return `<img class="blogroll__icon u-photo" src="${escapeHtml(url)}" alt="" width="16" height="16" loading="lazy" referrerpolicy="no-referrer">`;
  const letter = [...title.trim()][0]?.toLocaleUpperCase() ?? "?";
  return `<span class="blogroll__icon blogroll__icon--letter" aria-hidden="true">${escapeHtml(letter)}</span>`;
}

/** A blog's name for people: its title, else its site's (or feed's) host. */
function blogName(entry: PageBlog): string {
  const { blog } = entry;
  if (blog.title.trim()) return blog.title;
  const url = httpUrl(blog.siteUrl) ?? httpUrl(blog.feedUrl);
  return url ? new URL(url).host : blog.feedUrl;
}

/**
 * One blog as an h-card on one line: icon (u-photo), name linked to its site
 * or else its feed (p-name u-url), its latest post as a nested h-entry with
 * its age (or, for a blog with no stored post, the age of the last post its
 * feed showed), a link to its feed (rel=alternate with the feed's type), its
 * fediverse profile (a second u-url), the owner's XFN values on the link to
 * it and the owner's public note (p-note); more latest posts, when asked
 * for, in a list below.
 */
export function blogCard(entry: PageBlog, render: RenderContext): string {
  const { blog, posts } = entry;
  const name = blogName(entry);
  // Who the author is to the owner (XFN) sits on the link to them, as XFN asks.
  const xfn = blog.relationship.length > 0 ? ` rel="${escapeHtml(blog.relationship.join(" "))}"` : "";
  const parts = [
    icon(blog.photo || blog.iconUrl, name),
    link(httpUrl(blog.siteUrl) ?? blog.feedUrl, name, "blogroll__name p-name u-url", xfn),
  ];
  const [first, ...more] = posts;
  if (first) parts.push(`<span class="blogroll__latest h-entry">${postEntry(first, render)}</span>`);
  else if (entry.lastPostAt) {
    const age = time(
      entry.lastPostAt,
      relativeDate(entry.lastPostAt, render.now, render.locale),
      "blogroll__date",
      render,
    );
    parts.push(`<span class="blogroll__latest">${escapeHtml(render.__("blogroll.home.lastPost"))} ${age}</span>`);
  }
  const feedType = blog.feedType ? FEED_TYPES[blog.feedType] : undefined;
  parts.push(
    link(
      blog.feedUrl,
      render.__("blogroll.home.feed"),
      "blogroll__feed",
      ` rel="alternate"${attribute("type", feedType)}`,
    ),
  );
  // The fediverse profile is a second address of the same person (u-url); a handle without one stays text.
  if (blog.fediverse) parts.push(link(blog.fediverseUrl, blog.fediverse, "blogroll__fediverse u-url"));
  if (blog.note) parts.push(`<p class="blogroll__note p-note">${escapeHtml(blog.note)}</p>`);
  if (more.length > 0)
    parts.push(
      `<ul class="blogroll__list blogroll__recent">${more.map((post) => `<li class="blogroll__item h-entry">${postEntry(post, render)}</li>`).join("")}</ul>`,
    );
  return `<li class="blogroll__blog h-card" data-blog="${blog.id}">${parts.join(" ")}</li>`;
}

/**
 * Everything blogCard's output depends on, as one string: the fields it
 * reads, the page's language (its words and date formats), and the dates as
 * written relative to `render.now`. Two entries with the same inputs have the
 * same card (test/page/cards.test.ts changes every field to check it).
 */
export function cardInputs(entry: PageBlog, render: RenderContext): string {
  const { blog, posts, lastPostAt } = entry;
  const date = (at: Date | null) => (at ? at.getTime() : null);
  return JSON.stringify([
    render.locale,
    blog.id,
    blog.title,
    blog.siteUrl,
    blog.feedUrl,
    blog.feedType,
    blog.photo,
    blog.iconUrl,
    blog.relationship,
    blog.fediverse,
    blog.fediverseUrl,
    blog.note,
    // Shown only for a blog without stored posts, as its age.
    posts.length === 0 && lastPostAt ? [date(lastPostAt), relativeDate(lastPostAt, render.now, render.locale)] : null,
    ...posts.map((post) => [
      post.url,
      postTitle(post),
      date(post.published),
      post.published ? humanDate(post.published, render.now, render.locale) : null,
    ]),
  ]);
}

/**
 * Cards made before, by their inputs (cardInputs), most recently used kept:
 * a rebuild after a change makes anew only the cards of the blogs it touched
 * (and of those whose relative dates moved on), and the page and the fragment
 * of one change share theirs.
 */
export class CardMemo {
  private readonly cards: BoundedMap<MadeCard & { bytes: number }>;
  /**
   * The card last given for a blog as read (storage reads make new objects,
   * never changed after): while its posts are the same array and its dates
   * read the same, the card is the same, found without writing its inputs.
   */
  private readonly byRead = new WeakMap<Blog, MadeCard & { posts: Item[]; dates: string }>();
  /** Cards made so far (not found). */
  made = 0;

  constructor(capacity = 4 * MAX_PAGE_BLOGS, maxBytes = 32 * 1024 * 1024) {
    this.cards = new BoundedMap(capacity, maxBytes);
  }

  /** The blog's card (blogCard's, found or made). */
  card(entry: PageBlog, render: RenderContext): string {
    return this.find(entry, render).html;
  }

  /** The blog's card as the body carries it (UTF-8), encoded once per card. */
  encoded(entry: PageBlog, render: RenderContext): Buffer {
    return this.find(entry, render).encoded;
  }

  private find(entry: PageBlog, render: RenderContext): MadeCard {
    const dates = dateTexts(entry, render);
    const known = this.byRead.get(entry.blog);
    if (known && known.posts === entry.posts && known.dates === dates) return known;
    const inputs = cardInputs(entry, render);
    let made: MadeCard | undefined = this.cards.get(inputs);
    if (!made) {
      const html = blogCard(entry, render);
      made = { html, encoded: Buffer.from(html) };
      this.made++;
      // UTF-16 in memory, two bytes a character (the key's and the card's), and its UTF-8 copy.
      this.cards.set(inputs, { ...made, bytes: 2 * (inputs.length + html.length) + made.encoded.length });
    }
    this.byRead.set(entry.blog, { ...made, posts: entry.posts, dates });
    return made;
  }
}

interface MadeCard {
  html: string;
  encoded: Buffer;
}

/** What of a card moves with the clock and the language: the page's language, and its dates as written (cardInputs has them too). */
function dateTexts({ posts, lastPostAt }: PageBlog, render: RenderContext): string {
  if (posts.length === 0)
    return lastPostAt
      ? `${render.locale} ${lastPostAt.getTime()} ${relativeDate(lastPostAt, render.now, render.locale)}`
      : render.locale;
  let texts = render.locale;
  for (const post of posts) if (post.published) texts += `\n${humanDate(post.published, render.now, render.locale)}`;
  return texts;
}

/** Blogs whose cards are made or found between two turns of other requests (about a millisecond's work). */
const CARDS_PER_TURN = 50;

/**
 * Every blog's h-card, made (or found in `memo`) a few at a time with other
 * requests served in between, for renderFragment and renderPage to put
 * together (a page of thousands of blogs is never made in one piece).
 */
export async function cardsInTurns(
  data: BlogrollData,
  render: RenderContext,
  memo: CardMemo,
): Promise<Map<PageBlog, Buffer>> {
  const cards = new Map<PageBlog, Buffer>();
  for (const group of data.groups) {
    for (const entry of group.blogs) {
      if (cards.size > 0 && cards.size % CARDS_PER_TURN === 0) await backgroundTurn();
      cards.set(entry, memo.encoded(entry, render));
    }
  }
  return cards;
}

/** A piece of a page or fragment: markup, or the card of a blog. */
type Part = string | PageBlog;

const NEWLINE = Buffer.from("\n");

/**
 * The parts written one after another make the body: encoded once here, the
 * cards as `cards` holds them (cardsInTurns; made here when absent), so a
 * body of a thousand cards is copied together rather than joined into one
 * string and encoded again.
 */
function encodeParts(parts: Part[], render: RenderContext, cards?: Map<PageBlog, Buffer>): Buffer {
  return Buffer.concat(
    parts.map((part) => {
      if (typeof part !== "string") return cards?.get(part) ?? Buffer.from(blogCard(part, render));
      return part === "\n" ? NEWLINE : Buffer.from(part);
    }),
  );
}

/**
 * The blogroll as an HTML fragment: no document, no script, no style.
 * Categories are headings (left out when one category is asked for, or none
 * exists), each group one list; `group=none` is one list.
 */
function fragmentParts(
  data: BlogrollData,
  render: RenderContext,
  options: { headingLevel: number; headed: boolean },
): Part[] {
  if (data.count === 0)
    return [
      `<div class="blogroll"><p class="blogroll__status">${escapeHtml(render.__("blogroll.home.noBlogs"))}</p></div>`,
    ];
  const headed = options.headed && data.groups.some((group) => group.category !== null);
  const level = options.headingLevel;
  const parts: Part[] = ['<div class="blogroll">\n'];
  for (const [n, group] of data.groups.entries()) {
    if (n > 0) parts.push("\n");
    if (headed) {
      const heading = group.category ?? render.__("blogroll.home.other");
      parts.push(
        `<div class="blogroll__group">\n<h${level} class="blogroll__heading">${escapeHtml(heading)}</h${level}>\n`,
      );
    }
    parts.push('<ul class="blogroll__list blogroll__blogs">\n');
    for (const [i, entry] of group.blogs.entries()) {
      if (i > 0) parts.push("\n");
      parts.push(entry);
    }
    parts.push("\n</ul>");
    if (headed) parts.push("\n</div>");
  }
  parts.push("\n</div>\n");
  return parts;
}

/** The fragment (see fragmentParts) as UTF-8; `cards` holds the blogs' cards when made beforehand (cardsInTurns). */
export function renderFragment(
  data: BlogrollData,
  render: RenderContext,
  options: { headingLevel: number; headed: boolean; cards?: Map<PageBlog, Buffer> },
): Buffer {
  return encodeParts(fragmentParts(data, render, options), render, options.cards);
}

export interface PageLinks {
  /** The OPML export of the same blogs. */
  opml: string;
  atom: string;
  json: string;
  rss: string;
}

/** The whole page: its title, the OPML as its blogroll, the rivers as alternates and links, and the fragment. */
export function renderPage(
  data: BlogrollData,
  render: RenderContext,
  page: { title: string; links: PageLinks; headed: boolean; cards?: Map<PageBlog, Buffer> },
): Buffer {
  const { title, links } = page;
  const __ = render.__;
  const feeds: Array<[string, string, string]> = [
    [links.atom, "application/atom+xml", __("blogroll.home.atom")],
    [links.json, "application/feed+json", __("blogroll.home.json")],
    [links.rss, "application/rss+xml", __("blogroll.home.rss")],
  ];
  const headLinks = [
    `<link rel="blogroll" type="text/xml" title="${escapeHtml(title)}" href="${escapeHtml(links.opml)}">`,
    ...feeds.map(
      ([href, type, label]) =>
        `<link rel="alternate" type="${type}" title="${escapeHtml(label)}" href="${escapeHtml(href)}">`,
    ),
  ];
  const subscribe = [...feeds, [links.opml, "text/x-opml", __("blogroll.home.opml")]]
    .map(([href, type, label]) => `<li><a href="${escapeHtml(href)}" type="${type}">${escapeHtml(label)}</a></li>`)
    .join("");
  const head = `<!DOCTYPE html>
<html lang="${escapeHtml(render.locale)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
${headLinks.join("\n")}
<style>${PAGE_CSS}</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
<p class="page__intro">${escapeHtml(__("blogroll.home.intro"))}</p>
<nav aria-label="${escapeHtml(__("blogroll.home.subscribe"))}"><ul class="page__feeds">${subscribe}</ul></nav>
</header>
<main>
`;
  const parts = [
    head,
    ...fragmentParts(data, render, { headingLevel: 2, headed: page.headed }),
    "</main>\n</body>\n</html>\n",
  ];
  return encodeParts(parts, render, page.cards);
}
