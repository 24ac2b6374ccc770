import type { MetaStore } from "../types.js";
import type { MongoCollections } from "./collections.js";
import { guard, isDuplicateKey } from "./errors.js";
import { dateValue, textValue } from "./values.js";

/** Leases live beside the meta documents, under their own key prefix. */
const leaseKey = (name: string) => `lease:${textValue(name, "lease name")}`;

/**
 * A JSON copy of a meta value, so both adapters hand back the same thing
 * (Dates become ISO text, undefined becomes null).
 */
function jsonCopy(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

/** MetaStore on the `blogrollMeta` collection: `{ key, value }` documents and leases. */
export function createMongoMetaStore({ meta }: MongoCollections): MetaStore {
  return {
    get: <T>(key: string) =>
      guard("read a setting", async () => {
        const doc = await meta.findOne({ key: textValue(key, "key") });
        return doc && doc.value !== undefined ? (doc.value as T) : null;
      }),

    set: (key, value) =>
      guard("store a setting", async () => {
        await meta.updateOne({ key: textValue(key, "key") }, { $set: { value: jsonCopy(value) } }, { upsert: true });
      }),

    acquireLease: (name, holder, ttlMs, now = new Date()) =>
      guard("take a lease", async () => {
        const key = leaseKey(name);
        const owner = textValue(holder, "lease holder");
        const at = dateValue(now, "time");
        const expiresAt = new Date(at.getTime() + Math.max(0, Number(ttlMs) || 0));
        try {
          // One atomic step: matches when we hold it or it expired; otherwise the
          // upsert collides with the live lease on the unique key and fails.
          const doc = await meta.findOneAndUpdate(
            { key, $or: [{ holder: owner }, { expiresAt: { $lte: at } }] },
            { $set: { holder: owner, expiresAt, renewedAt: at } },
            { upsert: true, returnDocument: "after" },
          );
          return doc?.holder === owner;
        } catch (error) {
          if (isDuplicateKey(error)) return false;
          throw error;
        }
      }),

    releaseLease: (name, holder) =>
      guard("release a lease", async () => {
        await meta.deleteOne({ key: leaseKey(name), holder: textValue(holder, "lease holder") });
      }),
  };
}
