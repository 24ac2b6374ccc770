/**
 * What each kind of option accepts: the check validation runs, the words its
 * error and the docs use, and how a value written as text (an environment
 * variable) is read.
 */

import { parseHttpUrl } from "../url/http-url.js";

interface KindValues {
  "mount-path": string;
  integer: number;
  number: number;
  boolean: boolean;
  string: string;
  text: string;
  "http-url": string;
  "mongodb-url": string;
  "language-tag": string;
  "file-path": string;
}

export type OptionKind = keyof KindValues;
export type ValueOfKind<K extends OptionKind> = KindValues[K];

/** Bounds of the numeric kinds. */
export interface Bounds {
  min: number;
  max?: number;
}

interface Kind {
  /** True when the value is one this kind accepts. */
  accepts(value: unknown, bounds: Bounds): boolean;
  /** What a valid value is, as the error ("must be …") and the docs say it. */
  expected(bounds: Bounds): string;
  /** The value as resolved (e.g. a trailing slash dropped); only called on accepted values. */
  normalise?(value: never): unknown;
  /** The value a text stands for, undefined when it stands for none; kinds of text take the text as it is. */
  fromText?(text: string): unknown;
}

/** Booleans written as text: nothing but these, rather than a guess. */
const BOOLEAN_TEXTS: Record<string, boolean> = { true: true, "1": true, false: false, "0": false };

const numberKind = (integer: boolean): Kind => ({
  accepts: (value, { min, max = Number.MAX_SAFE_INTEGER }) =>
    typeof value === "number" &&
    Number.isFinite(value) &&
    (!integer || Number.isInteger(value)) &&
    value >= min &&
    value <= max,
  expected: ({ min, max }) =>
    `${integer ? "an integer" : "a number"} ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`}`,
});

/** An option as its kind and bounds describe it. */
interface Described {
  kind: OptionKind;
  min?: number;
  max?: number;
}

/** What an option's value must be, in the words of its errors and the docs ("a number from 1000 to …"). */
export function expectedValue(option: Described): string {
  return KINDS[option.kind].expected(boundsOf(option));
}

/** True when the value is one the option accepts. */
export function acceptsValue(option: Described, value: unknown): boolean {
  return KINDS[option.kind].accepts(value, boundsOf(option));
}

function boundsOf({ min = 0, max }: Described): Bounds {
  return { min, max };
}

const isNonEmptyString = (value: unknown): value is string => typeof value === "string" && value.trim() !== "";

export const KINDS: Record<OptionKind, Kind> = {
  "mount-path": {
    accepts: (value) => typeof value === "string" && /^\/[^\s?#]*$/.test(value) && value !== "/",
    expected: () => 'an absolute path such as "/blogrollapi"',
    normalise: (value: string) => value.replace(/\/+$/, ""),
  },
  integer: numberKind(true),
  number: numberKind(false),
  boolean: {
    accepts: (value) => typeof value === "boolean",
    expected: () => "true or false",
    fromText: (text) => BOOLEAN_TEXTS[text.trim().toLowerCase()],
  },
  string: {
    accepts: (value) => typeof value === "string",
    expected: () => "a string",
  },
  text: {
    accepts: isNonEmptyString,
    expected: () => "a non-empty string",
  },
  "http-url": {
    accepts: isHttpUrl,
    expected: () => "an absolute http(s) URL",
  },
  "mongodb-url": {
    accepts: (value) => typeof value === "string" && /^mongodb(\+srv)?:\/\//.test(value),
    expected: () => "a mongodb:// or mongodb+srv:// URL",
  },
  "language-tag": {
    accepts: isLanguageTag,
    expected: () => 'a language tag such as "de" or "pt-BR"',
  },
  "file-path": {
    accepts: (value) => typeof value === "string" && value !== "",
    expected: () => "a file path",
  },
};

function isLanguageTag(value: unknown): boolean {
  if (typeof value !== "string" || value === "") return false;
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
}

/** An http(s) address that parses as written: the option is used as given, without the trimming parseHttpUrl allows. */
function isHttpUrl(value: unknown): boolean {
  return typeof value === "string" && URL.canParse(value) && parseHttpUrl(value) !== null;
}
