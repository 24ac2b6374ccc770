import { DAY, HOUR, MINUTE, WEEK } from "../time/durations.js";

/** Units of a relative date, largest first, with their length in milliseconds (a month of 30 days, a year of 365). */
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["year", 365 * DAY],
  ["month", 30 * DAY],
  ["week", WEEK],
  ["day", DAY],
  ["hour", HOUR],
  ["minute", MINUTE],
];
/** Posts of the last 30 days get a relative date ("3 days ago"); older ones their date. */
const RELATIVE_WITHIN = 30 * DAY;

/**
 * Formatters per language, made once (Intl constructors are costly next to
 * formatting), and the relative texts they made: a page asks for the same
 * few ("3 hours ago") for each of its thousand blogs at every rebuild, and
 * formatting costs more than a lookup.
 */
const formatters = new Map<
  string,
  {
    relative: Intl.RelativeTimeFormat;
    day: Intl.DateTimeFormat;
    full: Intl.DateTimeFormat;
    texts: Map<string, string>;
  }
>();
/** Relative texts kept per language at most (units times counts in use are far fewer). */
const MAX_TEXTS = 1000;

function formattersFor(locale: string) {
  let found = formatters.get(locale);
  if (!found) {
    const make = (tag: string) => ({
      relative: new Intl.RelativeTimeFormat(tag, { numeric: "auto" }),
      day: new Intl.DateTimeFormat(tag, { dateStyle: "medium", timeZone: "UTC" }),
      full: new Intl.DateTimeFormat(tag, { dateStyle: "long", timeStyle: "short", timeZone: "UTC" }),
      texts: new Map<string, string>(),
    });
    try {
      found = make(locale);
    } catch {
      found = make("en");
    }
    formatters.set(locale, found);
  }
  return found;
}

/** "3 hours ago", "last week", "5 months ago": the largest whole unit, in the page's language. */
export function relativeDate(date: Date, now: number, locale: string): string {
  const diff = date.getTime() - now;
  const [unit, size] = UNITS.find(([, ms]) => Math.abs(diff) >= ms) ?? UNITS[UNITS.length - 1];
  const count = Math.round(diff / size);
  const { relative, texts } = formattersFor(locale);
  // -0 ("0 minutes ago" in some styles) is not 0 ("in 0 minutes").
  const key = `${Object.is(count, -0) ? "-0" : count} ${unit}`;
  let text = texts.get(key);
  if (text === undefined) {
    text = relative.format(count, unit);
    if (texts.size >= MAX_TEXTS) texts.clear();
    texts.set(key, text);
  }
  return text;
}

/** A post's date for people: relative within the last 30 days, else the day (in UTC, as the server knows no reader's zone). */
export function humanDate(date: Date, now: number, locale: string): string {
  return Math.abs(now - date.getTime()) < RELATIVE_WITHIN
    ? relativeDate(date, now, locale)
    : formattersFor(locale).day.format(date);
}

/** The full date and time, for a `title`. */
export function fullDate(date: Date, locale: string): string {
  return `${formattersFor(locale).full.format(date)} UTC`;
}
