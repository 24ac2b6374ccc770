import { parseOpmlInWorker } from "../sync/parse-pool.js";
import type { Source, SourceType } from "../storage/types.js";
import { DEFAULT_FEEDLAND_INSTANCE } from "../sources/feedland.js";
import { httpUrl } from "../url/http-url.js";
import { checkboxField, textField, type FormErrors } from "./forms.js";
import { opmlProblemOf } from "../opml/problem.js";
import { nameOfAddress, nameOfFile } from "../sources/naming.js";

/** Source types the owner can create from the admin (manual blogs are added one by one on the blogs page). */
export const FORM_TYPES = [
  "opml_url",
  "opml_file",
  "feedland",
  "blogroll",
  "microsub",
] as const satisfies readonly SourceType[];
export type FormSourceType = (typeof FORM_TYPES)[number];

export const NAME_MAX = 200;

/** Types whose list is an OPML document: left unnamed when created, the document's title names them. */
export const NAMED_BY_DOCUMENT: readonly FormSourceType[] = ["opml_url", "opml_file", "blogroll"];

/** What the source form holds, for every type (unused fields stay empty). */
export interface SourceFormValues {
  type: FormSourceType;
  name: string;
  enabled: boolean;
  url: string;
  xml: string;
  instance: string;
  screenName: string;
  category: string;
  channelUid: string;
  categoryPrefix: string;
}

export function isFormType(value: unknown): value is FormSourceType {
  return typeof value === "string" && (FORM_TYPES as readonly string[]).includes(value);
}

/** Reads the submitted form; the text of an uploaded OPML file takes the place of pasted text. */
export function readSourceForm(
  type: FormSourceType,
  body: Record<string, unknown> | undefined,
  uploaded = "",
): SourceFormValues {
  const pasted = typeof body?.xml === "string" ? body.xml : "";
  return {
    type,
    name: textField(body, "name"),
    enabled: checkboxField(body, "enabled"),
    url: textField(body, "url"),
    xml: uploaded || pasted,
    instance: textField(body, "instance") || DEFAULT_FEEDLAND_INSTANCE,
    screenName: textField(body, "screenName"),
    category: textField(body, "category"),
    channelUid: textField(body, "channelUid"),
    categoryPrefix: typeof body?.categoryPrefix === "string" ? body.categoryPrefix.slice(0, NAME_MAX) : "",
  };
}

/** The form filled from a stored source, for editing. */
export function valuesOfSource(source: Source & { type: FormSourceType }): SourceFormValues {
  const settings = source.settings;
  return {
    type: source.type,
    name: source.name,
    enabled: source.enabled,
    url: settings.url ?? "",
    xml: settings.xml ?? "",
    instance: settings.instance ?? DEFAULT_FEEDLAND_INSTANCE,
    screenName: settings.screenName ?? "",
    category: settings.category ?? "",
    channelUid: settings.channelUid ?? "",
    categoryPrefix: settings.categoryPrefix ?? "",
  };
}

/** The name of a source created unnamed, until its document's title replaces it: its address, or the uploaded file's name. */
export function provisionalName(
  values: SourceFormValues,
  fileName: string | null | undefined,
  typeLabel: string,
): string {
  const name = values.type === "opml_file" ? nameOfFile(fileName) : nameOfAddress(values.url);
  return (name || typeLabel).slice(0, NAME_MAX);
}

/** A blank form for a new source of `type`. */
export function blankValues(type: FormSourceType): SourceFormValues {
  return {
    type,
    name: "",
    enabled: true,
    url: "",
    xml: "",
    instance: DEFAULT_FEEDLAND_INSTANCE,
    screenName: "",
    category: "",
    channelUid: "",
    categoryPrefix: "",
  };
}

/** The settings stored for the form's type (only that type's keys). */
export function settingsOf(values: SourceFormValues): Record<string, string> {
  switch (values.type) {
    case "opml_url":
      return { url: httpUrl(values.url) ?? values.url };
    case "blogroll":
      return { url: siteUrlOf(values.url) ?? values.url };
    case "opml_file":
      return { xml: values.xml };
    case "feedland":
      return {
        instance: httpUrl(values.instance) ?? values.instance,
        screenName: values.screenName,
        ...(values.category ? { category: values.category } : {}),
      };
    case "microsub":
      return {
        ...(values.channelUid ? { channelUid: values.channelUid } : {}),
        ...(values.categoryPrefix ? { categoryPrefix: values.categoryPrefix } : {}),
      };
  }
}

type Translate = (key: string, vars?: Record<string, unknown>) => string;

/**
 * Server-side validation of the source form. OPML text is parsed here so a
 * broken document is reported on the form instead of being saved.
 */
export async function validateSourceForm(
  values: SourceFormValues,
  __: Translate,
  limits: {
    maxBytes: number;
    channelUids: string[] | null;
    uploadError?: "truncated" | "binary" | null;
    nameOptional?: boolean;
  },
): Promise<FormErrors> {
  const errors: FormErrors = {};
  if (!values.name && !limits.nameOptional) errors.name = __("blogroll.sources.errors.nameRequired");
  else if (values.name.length > NAME_MAX) errors.name = __("blogroll.sources.errors.nameTooLong", { max: NAME_MAX });
  switch (values.type) {
    case "opml_url":
      if (!values.url) errors.url = __("blogroll.sources.errors.urlRequired");
      else if (!httpUrl(values.url)) errors.url = __("blogroll.sources.errors.urlInvalid");
      break;
    case "opml_file": {
      if (limits.uploadError) {
        errors.opmlFile = __(
          limits.uploadError === "binary" ? "blogroll.sources.errors.notText" : "blogroll.sources.errors.uploadFailed",
        );
        break;
      }
      if (!values.xml.trim()) {
        errors.opmlFile = __("blogroll.sources.errors.xmlRequired");
        break;
      }
      const parsed = await tryParseOpml(values.xml, limits.maxBytes);
      if (parsed.error) errors.xml = describeOpmlForOwner(values.xml, parsed.error, __);
      else if (parsed.feeds === 0) errors.xml = __("blogroll.sources.errors.noFeeds");
      break;
    }
    case "blogroll":
      if (!values.url) errors.url = __("blogroll.sources.errors.siteRequired");
      else if (!siteUrlOf(values.url)) errors.url = __("blogroll.sources.errors.urlInvalid");
      break;
    case "feedland":
      if (!httpUrl(values.instance)) errors.instance = __("blogroll.sources.errors.instanceInvalid");
      if (!values.screenName) errors.screenName = __("blogroll.sources.errors.screenNameRequired");
      break;
    case "microsub":
      if (limits.channelUids === null) errors.channelUid = __("blogroll.sources.errors.microsubUnavailable");
      else if (values.channelUid && !limits.channelUids.includes(values.channelUid))
        errors.channelUid = __("blogroll.sources.errors.channelUnknown");
      break;
  }
  return errors;
}

/** A site address as typed, scheme optional (https assumed), as an absolute http(s) URL; null when it is none. */
export function siteUrlOf(value: string): string | null {
  const text = value.trim();
  if (text === "" || /\s/.test(text)) return null;
  return httpUrl(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
}

/** Why pasted or uploaded text is not usable OPML, in the owner's language and in terms of what they gave. */
function describeOpmlForOwner(xml: string, parserMessage: string, __: Translate): string {
  const problem = opmlProblemOf(xml, parserMessage);
  switch (problem.kind) {
    case "binary":
      return __("blogroll.sources.errors.notText");
    case "address":
      return __("blogroll.sources.errors.xmlAddress");
    case "not-xml":
      return __("blogroll.sources.errors.xmlNotXml");
    case "web-page":
      return __("blogroll.sources.errors.xmlWebPage");
    case "after-end":
      return __("blogroll.sources.errors.xmlAfterEnd", { line: problem.line });
    case "malformed":
      return __("blogroll.sources.errors.xmlMalformed", { line: problem.line, detail: problem.detail });
    case "other":
      return __("blogroll.sources.errors.xmlInvalid", { reason: problem.detail });
  }
}

/** Parses OPML text (in the parse pool) to check it: how many feeds it lists, or the parser's complaint. */
async function tryParseOpml(xml: string, maxBytes: number): Promise<{ feeds: number; error: string | null }> {
  try {
    return { feeds: (await parseOpmlInWorker(xml, { maxBytes })).feeds.length, error: null };
  } catch (error) {
    return { feeds: 0, error: error instanceof Error ? error.message : String(error) };
  }
}
