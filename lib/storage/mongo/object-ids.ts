import { createRequire } from "node:module";
import type { ObjectId } from "mongodb";
import { isValidId } from "../id.js";

/*
 * ObjectIds of the driver that owns the collections. Indiekit hands over
 * collections of its own driver: mongodb 7 (bson 7) since 1.0.0-beta.25, like
 * this package's own client, but mongodb 6 (bson 6) up to 1.0.0-beta.24. A
 * BSON serializer refuses values of another major version ("Unsupported BSON
 * version"), and ids read back are instances of the host's class, so ids are
 * made with the owning driver's class and recognised by their BSON tag, never
 * with `instanceof`.
 *
 * The TypeScript type stays the driver's `ObjectId` (the plugin's typings):
 * both majors share that shape; only the runtime class differs.
 */

type ObjectIdClass = new (hex?: string) => ObjectId;

/** What the driver exposes of a collection to find its primary-key factory (public API in mongodb 4 to 7). */
interface CollectionWithDb {
  db?: {
    options?: { pkFactory?: { createPk?: () => unknown } };
    client?: { options?: { pkFactory?: { createPk?: () => unknown } } };
  };
}

/** True for an ObjectId of any BSON library (the host's driver may bundle another bson than ours). */
export function isObjectId(value: unknown): value is ObjectId {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { _bsontype?: unknown })._bsontype === "ObjectId" &&
    typeof (value as { toHexString?: unknown }).toHexString === "function"
  );
}

/**
 * The ObjectId class of the driver that owns `collection`. The collection makes
 * the `_id` of new documents with its database's primary-key factory
 * (`db.options.pkFactory`, set from the client's options): an id it makes is an
 * instance of that driver's class. Our own class when the factory cannot be
 * reached or makes something else (a custom factory).
 */
export function objectIdClassOf(collection: unknown): ObjectIdClass {
  const db = (collection as CollectionWithDb | null)?.db;
  const factory = db?.options?.pkFactory ?? db?.client?.options?.pkFactory;
  let sample: unknown;
  try {
    sample = factory?.createPk?.();
  } catch {
    sample = undefined;
  }
  return isObjectId(sample) ? (sample.constructor as ObjectIdClass) : ownObjectId();
}

/**
 * This package's own driver's class, loaded on first need: the Microsub
 * collections (read through this module) are the host's, whose driver is
 * already loaded, and a plugin on SQLite never loads the driver at all.
 */
function ownObjectId(): ObjectIdClass {
  return (createRequire(import.meta.url)("mongodb") as typeof import("mongodb")).ObjectId;
}

/** Makes and reads the ids of one storage, with the class of the driver that owns its collections. */
export interface ObjectIds {
  /** A new ObjectId. */
  create(): ObjectId;
  /** The ObjectId for a port id, or null for anything that is not one. */
  of(id: unknown): ObjectId | null;
  /** ObjectIds for the valid ids of a list; the rest are dropped. */
  ofList(ids: unknown): ObjectId[];
  /**
   * How a reference to another record (source, Microsub feed) is stored: an
   * ObjectId when it is an id, the text otherwise (the port allows any string).
   */
  ref(id: unknown): ObjectId | string | null;
  /** Both forms a stored reference may take (ObjectId, or text written by older code), for `$in` filters. */
  refCandidates(id: string): Array<ObjectId | string>;
}

/** ObjectIds made with the class of the driver that owns `collection`. */
export function objectIdsFor(collection: unknown): ObjectIds {
  const ObjectIdClass = objectIdClassOf(collection);
  const of = (id: unknown): ObjectId | null => (isValidId(id) ? new ObjectIdClass(id) : null);
  return {
    create: () => new ObjectIdClass(),
    of,
    ofList: (ids) => (Array.isArray(ids) ? ids.map(of).filter((id): id is ObjectId => id !== null) : []),
    ref: (id) => (typeof id !== "string" || id === "" ? null : (of(id) ?? id)),
    refCandidates: (id) => {
      const objectId = of(id);
      return objectId ? [objectId, id] : [id];
    },
  };
}

/** A stored reference (ObjectId of any driver, or text) as the port's hex string. */
export function refHex(value: unknown): string | null {
  if (isObjectId(value)) return value.toHexString();
  if (typeof value === "string" && value !== "") return value;
  return null;
}
