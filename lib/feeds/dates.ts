import { MINUTE } from "../time/durations.js";

/**
 * Strict date parsing for feed timestamps. Accepts ISO 8601 / RFC 3339
 * (Atom, JSON Feed, microformats), RFC 822 / 2822 (RSS) and the JavaScript
 * `Date#toString` shape some generators emit. Anything else, impossible
 * calendar values (31 June, hour 25) and years outside 1970..9999 give null:
 * a missing date is better than an invented one.
 */

const MIN_YEAR = 1970;
const MAX_YEAR = 9999;

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
  january: 1,
  february: 2,
  march: 3,
  april: 4,
  june: 6,
  july: 7,
  august: 8,
  september: 9,
  october: 10,
  november: 11,
  december: 12,
};

/** Named zones seen in feeds, in minutes east of UTC. */
const ZONES: Record<string, number> = {
  UT: 0,
  UTC: 0,
  GMT: 0,
  Z: 0,
  WET: 0,
  EST: -300,
  EDT: -240,
  CST: -360,
  CDT: -300,
  MST: -420,
  MDT: -360,
  PST: -480,
  PDT: -420,
  AKST: -540,
  AKDT: -480,
  HST: -600,
  BST: 60,
  CET: 60,
  CEST: 120,
  MET: 60,
  MEST: 120,
  WEST: 60,
  EET: 120,
  EEST: 180,
  MSK: 180,
  IST: 330,
  JST: 540,
  KST: 540,
  AEST: 600,
  AEDT: 660,
  ACST: 570,
  AWST: 480,
  NZST: 720,
  NZDT: 780,
};

interface DateParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
  /** Minutes east of UTC. */
  offset: number;
}

/**
 * A Date for a feed timestamp, or null when `value` is not a date this
 * module can read. Dates without a zone, or with a zone name it does not
 * know, are taken as UTC.
 */
export function parseFeedDate(value: unknown): Date | null {
  if (value instanceof Date) return inRange(value);
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (!text) return null;
  const parts = parseIso(text) ?? parseRfc822(text) ?? parseJsToString(text);
  return parts ? toDate(parts) : null;
}

const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/;

function parseIso(text: string): DateParts | null {
  const m = ISO.exec(text);
  if (!m) return null;
  if (m[8] && !m[4]) return null; // a zone needs a time
  return {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4] ?? 0),
    minute: Number(m[5] ?? 0),
    second: Number(m[6] ?? 0),
    millisecond: m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0,
    offset: m[8] ? (zoneOffset(m[8]) ?? 0) : 0,
  };
}

// [Wkd,] DD Mon YY[YY] HH:MM[:SS] [zone] [(comment)]
const RFC822 =
  /^(?:[a-z]+,?\s+)?(\d{1,2})[\s-]+([a-z]+)\.?[\s-]+(\d{2}|\d{4})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\s*([a-z]{1,5}|[+-]\d{2}:?\d{2}|(?:GMT|UTC)[+-]\d{2}:?\d{2}))?(?:\s*\([^)]*\))?$/i;

function parseRfc822(text: string): DateParts | null {
  const m = RFC822.exec(text);
  if (!m) return null;
  const month = MONTHS[m[2].toLowerCase()];
  if (!month) return null;
  // An unknown zone name is read as UTC: hours off beats no date at all.
  const offset = m[7] ? (zoneOffset(m[7]) ?? 0) : 0;
  return {
    year: expandYear(m[3]),
    month,
    day: Number(m[1]),
    hour: Number(m[4]),
    minute: Number(m[5]),
    second: Number(m[6] ?? 0),
    millisecond: 0,
    offset,
  };
}

// Wkd Mon DD YYYY HH:MM:SS GMT+hhmm (Zone Name)
const JS_TO_STRING =
  /^[a-z]{3}\s+([a-z]{3})\s+(\d{1,2})\s+(\d{4})\s+(\d{2}):(\d{2}):(\d{2})\s+GMT([+-]\d{4})(?:\s*\([^)]*\))?$/i;

function parseJsToString(text: string): DateParts | null {
  const m = JS_TO_STRING.exec(text);
  const month = m ? MONTHS[m[1].toLowerCase()] : undefined;
  if (!m || !month) return null;
  return {
    year: Number(m[3]),
    month,
    day: Number(m[2]),
    hour: Number(m[4]),
    minute: Number(m[5]),
    second: Number(m[6]),
    millisecond: 0,
    offset: zoneOffset(m[7]) ?? 0,
  };
}

/** RFC 2822 §4.3: two-digit years 00-49 are 20xx, 50-99 are 19xx. */
function expandYear(year: string): number {
  const n = Number(year);
  if (year.length === 4) return n;
  return n < 50 ? 2000 + n : 1900 + n;
}

/**
 * Minutes east of UTC for a numeric (`+0200`, `-05:00`, `+02`, `GMT+0100`),
 * named (`EST`) or RFC 822 military (`A`..`Z`, `J` unused) zone; null when
 * unknown. Military letters follow RFC 822's own table (A = +1h, N = -1h);
 * RFC 2822 notes the signs were often inverted in practice, so they are a
 * best effort.
 */
function zoneOffset(zone: string): number | null {
  const numeric = /^(?:GMT|UTC)?([+-])(\d{2}):?(\d{2})?$/i.exec(zone);
  if (numeric) {
    const hours = Number(numeric[2]);
    const minutes = Number(numeric[3] ?? 0);
    if (hours > 23 || minutes > 59) return null;
    return (numeric[1] === "-" ? -1 : 1) * (hours * 60 + minutes);
  }
  const upper = zone.toUpperCase();
  if (upper in ZONES) return ZONES[upper];
  if (/^[A-IK-Z]$/.test(upper)) return militaryOffset(upper);
  return null;
}

function militaryOffset(letter: string): number {
  const code = letter.charCodeAt(0);
  if (letter === "Z") return 0;
  if (code <= "I".charCodeAt(0)) return (code - "A".charCodeAt(0) + 1) * 60;
  if (code <= "M".charCodeAt(0)) return (code - "K".charCodeAt(0) + 10) * 60;
  return -(code - "N".charCodeAt(0) + 1) * 60;
}

/** Builds the Date only if every field is a real calendar value. */
function toDate(p: DateParts): Date | null {
  if (p.month < 1 || p.month > 12 || p.day < 1 || p.day > 31) return null;
  if (p.hour > 23 || p.minute > 59 || p.second > 60) return null;
  const second = Math.min(p.second, 59); // a leap second is read as :59
  const utc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, second, p.millisecond);
  const check = new Date(utc);
  // Date.UTC rolls 31 June over to 1 July; refuse instead.
  if (check.getUTCDate() !== p.day || check.getUTCMonth() !== p.month - 1) return null;
  // Date.UTC maps years 0-99 to 1900-1999; the range check below rejects them anyway.
  if (check.getUTCFullYear() !== p.year) return null;
  return inRange(new Date(utc - p.offset * MINUTE));
}

function inRange(date: Date): Date | null {
  const time = date.getTime();
  if (Number.isNaN(time)) return null;
  const year = date.getUTCFullYear();
  return year >= MIN_YEAR && year <= MAX_YEAR ? new Date(time) : null;
}
