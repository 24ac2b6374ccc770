import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRelationship, XFN_GROUPS, XFN_VALUES } from "../../lib/xfn/relationship.js";

describe("XFN 1.1 relationship", () => {
  it("knows the profile's values, `me` not among them", () => {
    assert.deepEqual(XFN_VALUES, [
      "contact",
      "acquaintance",
      "friend",
      "met",
      "co-worker",
      "colleague",
      "co-resident",
      "neighbor",
      "child",
      "parent",
      "sibling",
      "spouse",
      "kin",
      "muse",
      "crush",
      "date",
      "sweetheart",
    ]);
    assert.deepEqual(
      XFN_GROUPS.filter((group) => group.exclusive).map((group) => group.name),
      ["friendship", "geographical", "family"],
    );
  });

  it("accepts one value of each exclusive group with any of the others, in the profile's order, repeats and case folded", () => {
    assert.deepEqual(
      parseRelationship([
        "Sweetheart",
        "met",
        "friend",
        "neighbor",
        "spouse",
        "colleague",
        "co-worker",
        "met",
        "muse",
        "crush",
        "date",
      ]),
      {
        ok: true,
        relationship: [
          "friend",
          "met",
          "co-worker",
          "colleague",
          "neighbor",
          "spouse",
          "muse",
          "crush",
          "date",
          "sweetheart",
        ],
      },
    );
    assert.deepEqual(parseRelationship([]), { ok: true, relationship: [] });
    assert.deepEqual(parseRelationship(["", "  "]), { ok: true, relationship: [] });
  });

  it("refuses two values of an exclusive group: friendship, family, geography", () => {
    assert.deepEqual(parseRelationship(["friend", "contact"]), {
      ok: false,
      problem: { kind: "exclusive", group: "friendship", values: ["contact", "friend"] },
    });
    assert.deepEqual(parseRelationship(["acquaintance", "friend", "met"]), {
      ok: false,
      problem: { kind: "exclusive", group: "friendship", values: ["acquaintance", "friend"] },
    });
    assert.deepEqual(parseRelationship(["kin", "sibling"]), {
      ok: false,
      problem: { kind: "exclusive", group: "family", values: ["sibling", "kin"] },
    });
    assert.deepEqual(parseRelationship(["co-resident", "neighbor"]), {
      ok: false,
      problem: { kind: "exclusive", group: "geographical", values: ["co-resident", "neighbor"] },
    });
  });

  it("refuses `me` (alone or with others) and values XFN does not define", () => {
    assert.deepEqual(parseRelationship(["me"]), { ok: false, problem: { kind: "me" } });
    assert.deepEqual(parseRelationship(["friend", "ME"]), { ok: false, problem: { kind: "me" } });
    assert.deepEqual(parseRelationship(["friend", "nofollow"]), {
      ok: false,
      problem: { kind: "unknown", value: "nofollow" },
    });
    assert.deepEqual(parseRelationship(["grandparent"]), {
      ok: false,
      problem: { kind: "unknown", value: "grandparent" },
    });
  });
});
