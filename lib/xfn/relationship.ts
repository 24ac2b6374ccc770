/*
 * Who a blog's author is to the owner, in the words of XFN 1.1
 * (https://gmpg.org/xfn/11): the `rel` values a link to a person's site may
 * carry. Three groups allow at most one value each; `me` (a link to one's
 * own other site) is never a blog someone else writes, so it is refused.
 */

/** A group of values, in the profile's order; `exclusive`: at most one of them. */
export interface XfnGroup {
  name: "friendship" | "physical" | "professional" | "geographical" | "family" | "romantic";
  exclusive: boolean;
  values: readonly string[];
}

export const XFN_GROUPS: readonly XfnGroup[] = [
  { name: "friendship", exclusive: true, values: ["contact", "acquaintance", "friend"] },
  { name: "physical", exclusive: false, values: ["met"] },
  { name: "professional", exclusive: false, values: ["co-worker", "colleague"] },
  { name: "geographical", exclusive: true, values: ["co-resident", "neighbor"] },
  { name: "family", exclusive: true, values: ["child", "parent", "sibling", "spouse", "kin"] },
  { name: "romantic", exclusive: false, values: ["muse", "crush", "date", "sweetheart"] },
];

/** Every value a relationship may hold, in the profile's order. */
export const XFN_VALUES: readonly string[] = XFN_GROUPS.flatMap((group) => group.values);

export type RelationshipProblem =
  | { kind: "me" }
  | { kind: "unknown"; value: string }
  | { kind: "exclusive"; group: XfnGroup["name"]; values: string[] };

export type RelationshipResult = { ok: true; relationship: string[] } | { ok: false; problem: RelationshipProblem };

/**
 * The values the owner picked, checked and put in the profile's order
 * (repeats dropped, case folded: `rel` values are case-insensitive). An
 * unknown value, `me`, or two values of an exclusive group is a problem.
 */
export function parseRelationship(picked: readonly string[]): RelationshipResult {
  const chosen = new Set(picked.map((value) => value.trim().toLowerCase()).filter(Boolean));
  if (chosen.has("me")) return { ok: false, problem: { kind: "me" } };
  const unknown = [...chosen].find((value) => !XFN_VALUES.includes(value));
  if (unknown !== undefined) return { ok: false, problem: { kind: "unknown", value: unknown } };
  for (const group of XFN_GROUPS) {
    const inGroup = group.values.filter((value) => chosen.has(value));
    if (group.exclusive && inGroup.length > 1)
      return { ok: false, problem: { kind: "exclusive", group: group.name, values: inGroup } };
  }
  return { ok: true, relationship: XFN_VALUES.filter((value) => chosen.has(value)) };
}
