import type { NextFunction, Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import { parseHttpUrl } from "../url/http-url.js";
import { noticeFromQuery } from "./notices.js";

/** Where the host serves this plugin's `assets/` folder (Indiekit: `/assets/<package name>/`). */
export const PLUGIN_ASSETS = "/assets/indiekit-endpoint-blogroll";

type Translate = (key: string, vars?: Record<string, unknown>) => string;

/** The request's language: the standalone host sets `locals.locale`; Indiekit's i18n sets `request.locale`. */
export function requestLocale(request: Request, response: Response): string {
  const candidates = [
    response.locals.locale,
    (request as Request & { locale?: unknown }).locale,
    response.locals.application?.locale,
  ];
  for (const candidate of candidates) {
    const tag = canonical(candidate);
    if (tag) return tag;
  }
  return "en";
}

function canonical(value: unknown): string | null {
  if (typeof value !== "string" || value === "") return null;
  try {
    return Intl.getCanonicalLocales(value)[0] ?? null;
  } catch {
    return null;
  }
}

/**
 * The locale dates and numbers are formatted in: the reader's own regional
 * variant when the page's language is theirs (en-GB dates for an "en" page
 * asked for by an en-GB browser), else the page's language.
 */
export function formatLocale(request: Request, language: string): string {
  const base = language.split("-")[0].toLowerCase();
  for (const part of (request.get("Accept-Language") ?? "").split(",")) {
    const tag = canonical(part.split(";")[0].trim());
    if (tag && tag.split("-")[0].toLowerCase() === base) return tag;
  }
  return language;
}

/**
 * A date formatter in the request's locale: one format everywhere (medium
 * date, short time); empty text for a missing or invalid date.
 */
export function dateFormatter(locale: string) {
  const format = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
  return (value: unknown): string => {
    if (value === null || value === undefined || value === "") return "";
    const date = value instanceof Date ? value : new Date(String(value));
    return Number.isNaN(date.getTime()) ? "" : format.format(date);
  };
}

const UNTITLED_LENGTH = 80;

/**
 * What a post is called in the admin: its title, else (notes, h-entries) the
 * start of its text, as the widget shows it, else its address; empty when it
 * has none of these.
 */
export function itemText(item: { title?: string | null; summary?: string | null; url?: string | null }): string {
  const title = (item.title ?? "").trim();
  if (title) return title;
  const summary = (item.summary ?? "").replace(/\s+/g, " ").trim();
  if (summary) {
    const characters = [...summary];
    return characters.length > UNTITLED_LENGTH
      ? `${characters
          .slice(0, UNTITLED_LENGTH - 1)
          .join("")
          .trimEnd()}…`
      : summary;
  }
  return item.url ?? "";
}

/** The picture a blog is shown with: its own (feed or owner), else its site's icon; null for the letter tile. */
export function blogIcon(blog: { photo?: string | null; iconUrl?: string | null }): string | null {
  for (const candidate of [blog.photo, blog.iconUrl]) if (candidate && parseHttpUrl(candidate)) return candidate;
  return null;
}

/** The letter of a blog's tile when it has no picture (or its picture fails). */
export function blogLetter(title: string): string {
  const first = [...title.trim()][0];
  return first ? first.toLocaleUpperCase() : "?";
}

/** Counts with the reader's digit grouping (1,234 / 1.234 / 1 234). */
export function numberFormatter(locale: string) {
  const format = new Intl.NumberFormat(locale);
  return (value: number): string => format.format(value);
}

/**
 * Plural-aware text: picks `<key>.<form>` by Intl.PluralRules (one, few,
 * many, other...) and falls back to `<key>.other`. Works with any host `__`
 * that resolves dotted keys, whatever its own plural support.
 */
export function pluralizer(translate: Translate, locale: string) {
  const rules = new Intl.PluralRules(locale);
  const formatNumber = numberFormatter(locale);
  return (key: string, count: number, vars: Record<string, unknown> = {}): string => {
    const all = { ...vars, count: formatNumber(count) };
    const form = `${key}.${rules.select(count)}`;
    const text = translate(form, all);
    return text === form || text === "" ? translate(`${key}.other`, all) : text;
  };
}

const SECTIONS = [
  { path: "/", key: "blogroll.nav.dashboard", match: (p: string) => p === "/" || p === "" },
  { path: "/sources", key: "blogroll.nav.sources", match: (p: string) => p.startsWith("/sources") },
  { path: "/blogs", key: "blogroll.nav.blogs", match: (p: string) => p.startsWith("/blogs") },
  { path: "/suggestions", key: "blogroll.nav.suggestions", match: (p: string) => p.startsWith("/suggestions") },
];

/**
 * Locals every admin view uses: `blogroll` (mount path, assets, section
 * navigation), `formatDate`, `formatNumber`, `plural`, and the notice of a redirect shown
 * as the host's `success`/`error` banner.
 */
export function adminLocals(context: BlogrollContext) {
  return (request: Request, response: Response, next: NextFunction) => {
    const translate: Translate = typeof response.locals.__ === "function" ? response.locals.__ : (key) => key;
    const locale = formatLocale(request, requestLocale(request, response));
    const mountPath = context.options.mountPath;
    response.locals.blogroll = {
      mountPath,
      assets: PLUGIN_ASSETS,
      sections: SECTIONS.map((section) => ({
        href: section.path === "/" ? mountPath : `${mountPath}${section.path}`,
        text: translate(section.key),
        current: section.match(request.path),
      })),
    };
    response.locals.formatDate = dateFormatter(locale);
    response.locals.itemText = itemText;
    response.locals.blogIcon = blogIcon;
    response.locals.blogLetter = blogLetter;
    response.locals.formatNumber = numberFormatter(locale);
    response.locals.plural = pluralizer(translate, locale);
    const notice = noticeFromQuery(request.query);
    if (notice) {
      const text = translate(`blogroll.notice.${notice.key}`);
      // Plain text in both hosts: Indiekit's layout renders `error` through its
      // notification banner (Markdown of a string; an Error's stack when it has one).
      response.locals[notice.type] = text;
    }
    next();
  };
}
