import type { Document } from "mongodb";
import type { PushKind, PushStore, PushSubscription } from "../types.js";
import type { MongoCollections } from "./collections.js";
import { guard } from "./errors.js";
import { textValue } from "./values.js";

const FIELDS: ReadonlyArray<keyof PushSubscription> = [
  "id",
  "blogId",
  "kind",
  "hub",
  "topic",
  "callbackToken",
  "secret",
  "state",
  "leaseSeconds",
  "expiresAt",
  "lastError",
  "requestedAt",
  "verifiedAt",
  "lastNotifiedAt",
  "distrustedUntil",
  "createdAt",
  "updatedAt",
];
const DATES = new Set<keyof PushSubscription>([
  "expiresAt",
  "requestedAt",
  "verifiedAt",
  "lastNotifiedAt",
  "distrustedUntil",
  "createdAt",
  "updatedAt",
]);

/** A stored document as the port's record: dates as Dates, absent fields as null. */
function toSubscription(doc: Document): PushSubscription {
  const record: Record<string, unknown> = {};
  for (const field of FIELDS) {
    const value = doc[field] ?? null;
    record[field] = DATES.has(field) && value !== null ? new Date(value as Date) : value;
  }
  return record as unknown as PushSubscription;
}

/** The record's fields only (no `_id`), so a replace keeps the document's own `_id`. */
function toDocument(subscription: PushSubscription): Document {
  const doc: Document = {};
  for (const field of FIELDS) doc[field] = subscription[field] ?? null;
  return doc;
}

/** PushStore on the `blogrollPush` collection; the record's `id` is a field of its own (unique), beside the driver's `_id`. */
export function createMongoPushStore({ push }: MongoCollections): PushStore {
  const list = async (filter: Document) => (await push.find(filter).sort({ id: 1 }).toArray()).map(toSubscription);
  return {
    put: (subscription) =>
      guard("store a push subscription", async () => {
        const id = textValue(subscription.id, "subscription id");
        await push.deleteMany({
          blogId: textValue(subscription.blogId, "blog id"),
          kind: textValue(subscription.kind, "kind"),
          id: { $ne: id },
        });
        await push.updateOne({ id }, { $set: toDocument(subscription) }, { upsert: true });
      }),
    get: (id) =>
      guard("read a push subscription", async () => {
        const doc = await push.findOne({ id: textValue(id, "subscription id") });
        return doc ? toSubscription(doc) : null;
      }),
    getByToken: (token) =>
      guard("read a push subscription", async () => {
        const doc = await push.findOne({ callbackToken: textValue(token, "callback") });
        return doc ? toSubscription(doc) : null;
      }),
    listByBlog: (blogId) => guard("list push subscriptions", () => list({ blogId: textValue(blogId, "blog id") })),
    listByTopic: (kind: PushKind, topic) =>
      guard("list push subscriptions", () => list({ kind: textValue(kind, "kind"), topic: textValue(topic, "topic") })),
    list: () => guard("list push subscriptions", () => list({})),
    noteNotified: (id, at) =>
      guard(
        "note a push notification",
        async () =>
          void (await push.updateOne({ id: textValue(id, "subscription id") }, { $set: { lastNotifiedAt: at } })),
      ),
    delete: (id) =>
      guard(
        "delete a push subscription",
        async () => (await push.deleteOne({ id: textValue(id, "subscription id") })).deletedCount > 0,
      ),
  };
}
