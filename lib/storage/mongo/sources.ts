import type { Document } from "mongodb";
import { StorageError, type SourcePatch, type SourceStore } from "../types.js";
import { freshSourceState } from "../fresh.js";
import type { MongoCollections } from "./collections.js";
import { settingsOf, toSource } from "./documents.js";
import { guard } from "./errors.js";
import type { ObjectIds } from "./object-ids.js";
import { countValue, dateValue, optionalTextValue, textValue } from "./values.js";

const SOURCE_STATUSES = ["pending", "ok", "error"];

/** The `$set` of a patch; fields left `undefined` are not touched. */
function patchChanges(patch: SourcePatch): Document {
  const set: Document = {};
  if (patch.name !== undefined) set.name = textValue(patch.name, "source name");
  if (patch.enabled !== undefined) set.enabled = patch.enabled === true;
  if (patch.settings !== undefined) set.settings = settingsOf(patch.settings);
  if (patch.status !== undefined) {
    if (!SOURCE_STATUSES.includes(patch.status)) throw new StorageError("Invalid source status");
    set.status = patch.status;
  }
  if (patch.lastError !== undefined) set.lastError = optionalTextValue(patch.lastError, "error");
  if (patch.lastSyncAt !== undefined)
    set.lastSyncAt = patch.lastSyncAt === null ? null : dateValue(patch.lastSyncAt, "sync time");
  if (patch.lastImport !== undefined) {
    const counts = patch.lastImport;
    set.lastImport =
      counts === null
        ? null
        : {
            added: countValue(counts.added),
            updated: countValue(counts.updated),
            unchanged: countValue(counts.unchanged),
            skipped: countValue(counts.skipped),
            missing: countValue(counts.missing),
          };
  }
  if (patch.etag !== undefined) set.etag = optionalTextValue(patch.etag, "etag");
  if (patch.lastModified !== undefined) set.lastModified = optionalTextValue(patch.lastModified, "last-modified");
  return set;
}

/** SourceStore on the `blogrollSources` collection. */
export function createMongoSourceStore({ sources }: MongoCollections, ids: ObjectIds): SourceStore {
  return {
    list: () =>
      guard("list sources", async () => {
        const docs = await sources.find({}).sort({ createdAt: 1, _id: 1 }).toArray();
        return docs.map(toSource);
      }),

    get: (id) =>
      guard("read a source", async () => {
        const _id = ids.of(id);
        const doc = _id ? await sources.findOne({ _id }) : null;
        return doc ? toSource(doc) : null;
      }),

    create: (input) =>
      guard("create a source", async () => {
        const now = new Date();
        const doc: Document = {
          _id: ids.create(),
          type: textValue(input.type, "source type"),
          name: textValue(input.name, "source name"),
          enabled: input.enabled !== false,
          settings: settingsOf(input.settings),
          ...freshSourceState(),
          createdAt: now,
          updatedAt: now,
        };
        await sources.insertOne(doc);
        return toSource(doc);
      }),

    update: (id, patch) =>
      guard("update a source", async () => {
        const _id = ids.of(id);
        if (!_id) return null;
        const set = patchChanges(patch);
        const doc = await sources.findOneAndUpdate(
          { _id },
          { $set: { ...set, updatedAt: new Date() } },
          { returnDocument: "after" },
        );
        return doc ? toSource(doc) : null;
      }),

    delete: (id) =>
      guard("delete a source", async () => {
        const _id = ids.of(id);
        if (!_id) return false;
        const { deletedCount } = await sources.deleteOne({ _id });
        return deletedCount > 0;
      }),

    count: () => guard("count sources", () => sources.countDocuments({})),
  };
}
