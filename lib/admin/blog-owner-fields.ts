import type { BlogrollOptions } from "../options.js";
import type { Blog, BlogEdit } from "../storage/types.js";
import { normaliseHandle } from "../fediverse/handle.js";
import { findAccount } from "../fediverse/webfinger.js";
import { parseRelationship, XFN_GROUPS, type XfnGroup } from "../xfn/relationship.js";
import { textField, type FormErrors } from "./forms.js";

/*
 * What the owner says about a blog on its edit form, for the public
 * blogroll: who its author is to them (XFN), a public note, and the
 * author's fediverse handle (looked up by WebFinger when it changes).
 */

/** Characters (not UTF-16 units) a public note may have, as a post on the fediverse counts them. */
export const NOTE_MAX_CHARACTERS = 280;

export interface OwnerFieldValues {
  /** XFN values as picked (checked on save). */
  relationship: string[];
  note: string;
  fediverse: string;
}

type Body = Record<string, unknown> | undefined;
type Translate = (key: string, vars?: Record<string, unknown>) => string;

/** The form field of an XFN group: one radio group per exclusive group, one checkbox list for the rest. */
const fieldOf = (group: XfnGroup) => (group.exclusive ? `xfn-${group.name}` : "xfn");

/** Every value of a field that may be sent once or repeated. */
function listField(body: Body, name: string): string[] {
  const value = body?.[name];
  const values = Array.isArray(value) ? value : [value];
  return values.filter((entry): entry is string => typeof entry === "string");
}

/** Plain text on one line: a note is shown as a sentence, so line breaks and runs of spaces become one space. */
export function plainNote(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export function ownerFieldValuesOf(blog: Blog): OwnerFieldValues {
  return { relationship: blog.relationship, note: blog.note ?? "", fediverse: blog.fediverse ?? "" };
}

export function readOwnerFields(body: Body): OwnerFieldValues {
  const fields = [...new Set(XFN_GROUPS.map(fieldOf))];
  return {
    relationship: fields.flatMap((name) => listField(body, name)).filter((value) => value !== ""),
    note: typeof body?.note === "string" ? plainNote(body.note) : "",
    fediverse: textField(body, "fediverse"),
  };
}

/** Errors of what can be checked without asking anyone (the handle's account is looked up on save). */
export function validateOwnerFields(values: OwnerFieldValues, __: Translate): FormErrors {
  const errors: FormErrors = {};
  const relationship = parseRelationship(values.relationship);
  if (!relationship.ok) {
    const { problem } = relationship;
    errors.relationship =
      problem.kind === "me"
        ? __("blogroll.blogs.errors.relationshipMe")
        : problem.kind === "unknown"
          ? __("blogroll.blogs.errors.relationshipUnknown", { value: problem.value })
          : __("blogroll.blogs.errors.relationshipExclusive", {
              group: __(`blogroll.blogs.xfn.groups.${problem.group}`),
            });
  }
  if ([...values.note].length > NOTE_MAX_CHARACTERS)
    errors.note = __("blogroll.blogs.errors.tooLong", { max: NOTE_MAX_CHARACTERS });
  if (values.fediverse && !normaliseHandle(values.fediverse))
    errors.fediverse = __("blogroll.blogs.errors.fediverseInvalid");
  return errors;
}

/** The group an error is shown on: the exclusive group at fault, else the first. */
function errorGroup(values: OwnerFieldValues): XfnGroup["name"] {
  const result = parseRelationship(values.relationship);
  return !result.ok && result.problem.kind === "exclusive" ? result.problem.group : XFN_GROUPS[0].name;
}

/** The relationship part of the form, one entry per XFN group, ready for the `radios` and `checkboxes` macros. */
export function relationshipGroups(values: OwnerFieldValues, __: Translate, error?: string) {
  const picked = new Set(values.relationship);
  const faulty = error ? errorGroup(values) : null;
  return XFN_GROUPS.map((group) => {
    const items = group.values.map((value) => ({
      id: `xfn-${value}`,
      value,
      label: __(`blogroll.blogs.xfn.values.${value}`),
      checked: picked.has(value),
    }));
    const none = {
      id: `xfn-${group.name}-none`,
      value: "",
      label: __("blogroll.blogs.xfn.none"),
      checked: !items.some((item) => item.checked),
    };
    return {
      kind: group.exclusive ? "radios" : "checkboxes",
      name: fieldOf(group),
      idPrefix: `xfn-${group.name}`,
      legend: __(`blogroll.blogs.xfn.groups.${group.name}`),
      items: group.exclusive ? [none, ...items] : items,
      errorMessage: group.name === faulty ? { text: error } : undefined,
    };
  });
}

export type OwnerFieldChanges = { ok: true; edit: BlogEdit } | { ok: false; errors: FormErrors };

/**
 * The edit of the owner's fields that differ from the blog. A new handle is
 * looked up (WebFinger) for its profile page: a handle that cannot be found
 * is an error on the form, and nothing is saved.
 */
export async function ownerFieldChanges(
  blog: Blog,
  values: OwnerFieldValues,
  options: BlogrollOptions,
  __: Translate,
  signal?: AbortSignal,
): Promise<OwnerFieldChanges> {
  const edit: BlogEdit = {};
  const relationship = parseRelationship(values.relationship);
  if (relationship.ok && relationship.relationship.join(" ") !== blog.relationship.join(" "))
    edit.relationship = relationship.relationship;
  if ((values.note || null) !== blog.note) edit.note = values.note || null;
  const handle = values.fediverse ? normaliseHandle(values.fediverse) : null;
  if (handle !== blog.fediverse) {
    if (handle === null) edit.fediverse = null;
    else {
      const account = await findAccount(handle, options, signal);
      if (!account.ok)
        return {
          ok: false,
          errors: { fediverse: __("blogroll.blogs.errors.fediverseNotFound", { reason: account.error }) },
        };
      edit.fediverse = account.handle;
      edit.fediverseUrl = account.profileUrl;
    }
  }
  return { ok: true, edit };
}
