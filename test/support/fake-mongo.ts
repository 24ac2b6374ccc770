/**
 * TEST DOUBLE — not MongoDB. An in-memory stand-in for the few MongoDB
 * `Collection` methods this project calls, built on mingo (MongoDB's query
 * language for JavaScript objects). It lets the MongoDB adapter and the
 * Microsub reader run their real code paths without a server; behaviour that
 * only a server has (transactions, collations, index use, multikey unique
 * indexes, concurrency between processes) is not reproduced. Tests that use
 * it must say so in their names.
 *
 * Supported: find (sort/skip/limit/project, toArray, async iteration),
 * findOne, insertOne, insertMany, updateOne/updateMany (update operators,
 * $setOnInsert, pipeline updates, upsert), findOneAndUpdate, deleteOne,
 * deleteMany, countDocuments, estimatedDocumentCount, aggregate, bulkWrite (ordered or not),
 * createIndex (unique, partialFilterExpression), dropIndex and indexes(), and the
 * public `collection.db.options.pkFactory` the driver makes new ids with.
 *
 * Given `onQuery`, it tells of every query it runs (collection, operation,
 * filter, sort, limit), as the server would receive it, so tests can check
 * that an index serves each one (test/support/mongo-plans.ts).
 *
 * Given a BSON library (`createFakeDb({ bson })`), it plays a driver built on
 * that library, as Indiekit's own driver is for this plugin: every filter,
 * document, update and pipeline it is handed goes through that library's
 * serializer and back (so an ObjectId of another BSON major version throws
 * "Unsupported BSON version", as the real driver does), and the ObjectIds it
 * stores and returns are that library's.
 */
import * as bson6 from "bson6";
import { Aggregator, Query, updateOne as applyUpdate } from "mingo";
import { ObjectId, type Collection, type Db, type Document } from "mongodb";

type Filter = Document;
type Update = Document | Document[];
type SortSpec = Record<string, 1 | -1>;

interface IndexInfo {
  name: string;
  key: Record<string, 1 | -1>;
  unique: boolean;
  partialFilterExpression?: Document;
}

/** One query as the server would plan it: the collection, the operation, its filter, sort and limit. */
export interface LoggedQuery {
  collection: string;
  op: string;
  filter: Document;
  sort?: SortSpec;
  limit?: number;
  /** An aggregation that sorts documents after computing (a $sort neither right after the leading $match nor of groups): every document it matched is read and sorted. */
  sortsInMemory?: boolean;
}

/** The part of a BSON library (bson 6, bson 7) the stand-in uses to play a driver built on it. */
export interface BsonLibrary {
  ObjectId: new () => unknown;
  serialize(document: Document): Uint8Array;
  deserialize(bytes: Uint8Array): Document;
}

/**
 * bson 6, the BSON library of Indiekit's driver up to 1.0.0-beta.24 (mongodb 6),
 * typed as this package's driver's bson 7: the adapter's typings say bson 7
 * while such a host hands it bson 6 ids, and only the runtime class differs.
 */
export const BSON6 = bson6 as unknown as BsonLibrary & { ObjectId: typeof ObjectId };

/** Any BSON library's value type (ObjectId, Decimal128...): known by its tag, whichever library made it. */
function isBsonValue(value: unknown): value is { _bsontype: string; toHexString?: () => string } {
  return (
    typeof value === "object" && value !== null && typeof (value as { _bsontype?: unknown })._bsontype === "string"
  );
}

/** Deep copy keeping Date and BSON values, as a round trip through BSON would. */
function clone<T>(value: T): T {
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (isBsonValue(value) || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(clone) as T;
  const copy: Document = {};
  for (const [key, entry] of Object.entries(value as Document)) if (entry !== undefined) copy[key] = clone(entry);
  return copy as T;
}

function matches(filter: Filter, doc: Document): boolean {
  return new Query(filter, {}).test(doc);
}

/** The error a server sends when a unique index refuses a write. */
function duplicateKeyError(collection: string, index: string): Error {
  return Object.assign(new Error(`E11000 duplicate key error collection: ${collection} index: ${index}`), {
    name: "MongoServerError",
    code: 11000,
  });
}

function valueAt(doc: Document, path: string): unknown {
  let value: unknown = doc;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Document)[part];
  }
  return value;
}

/** A comparable text for an index key's values (missing counts as null, like the server). */
function keyText(doc: Document, index: IndexInfo): string {
  return JSON.stringify(
    Object.keys(index.key).map((path) => {
      const value = valueAt(doc, path);
      if (isBsonValue(value) && value.toHexString) return { oid: value.toHexString() };
      if (value instanceof Date) return { date: value.getTime() };
      return value ?? null;
    }),
  );
}

const ID_INDEX: IndexInfo = { name: "_id_", key: { _id: 1 }, unique: true };

/** Equality fields of a filter: what an upsert copies into the new document. */
function seedFromFilter(filter: Filter): Document {
  const seed: Document = {};
  for (const [key, value] of Object.entries(filter)) {
    if (key === "$and" && Array.isArray(value)) Object.assign(seed, ...value.map(seedFromFilter));
    if (key.startsWith("$")) continue;
    const isOperator =
      value &&
      typeof value === "object" &&
      !isBsonValue(value) &&
      !(value instanceof Date) &&
      !Array.isArray(value) &&
      Object.keys(value).some((k) => k.startsWith("$"));
    if (!isOperator) seed[key] = clone(value);
  }
  return seed;
}

interface UpdateOutcome {
  matchedCount: number;
  modifiedCount: number;
  upsertedCount: number;
  upsertedId: unknown;
}

class FakeCursor {
  private sortSpec?: SortSpec;
  private skipCount = 0;
  private limitCount = 0;
  private projection?: Document;

  /** The filter is read when the cursor runs, as the driver sends it only then. */
  constructor(
    private readonly source: () => Document[],
    private readonly filter: () => Filter,
    private readonly log: (query: Omit<LoggedQuery, "collection">) => void = () => undefined,
  ) {}

  sort(spec: SortSpec): this {
    this.sortSpec = spec;
    return this;
  }
  skip(count: number): this {
    this.skipCount = count;
    return this;
  }
  limit(count: number): this {
    this.limitCount = count;
    return this;
  }
  project(projection: Document): this {
    this.projection = projection;
    return this;
  }
  async toArray(): Promise<Document[]> {
    const filter = this.filter();
    this.log({
      op: "find",
      filter,
      ...(this.sortSpec ? { sort: this.sortSpec } : {}),
      ...(this.limitCount > 0 ? { limit: this.limitCount } : {}),
    });
    const pipeline: Document[] = [{ $match: filter }];
    if (this.sortSpec) pipeline.push({ $sort: this.sortSpec });
    if (this.skipCount > 0) pipeline.push({ $skip: this.skipCount });
    if (this.limitCount > 0) pipeline.push({ $limit: this.limitCount });
    if (this.projection) pipeline.push({ $project: this.projection });
    return new Aggregator(pipeline, {}).run(this.source().map(clone)) as Document[];
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<Document> {
    yield* await this.toArray();
  }
}

/** What the driver's `Db` offers that the stand-in reproduces: the primary-key factory in its options. */
interface FakeDbShape {
  options: { pkFactory: { createPk(): unknown } };
}

class FakeCollection {
  private docs: Document[] = [];
  private readonly indexList: IndexInfo[] = [{ ...ID_INDEX }];

  constructor(
    readonly collectionName: string,
    readonly db: FakeDbShape,
    private readonly bson: BsonLibrary | null,
    private readonly onQuery: ((query: LoggedQuery) => void) | null = null,
  ) {}

  /** Tells the database's query log (when it has one) of a query this collection ran. */
  private logQuery(query: Omit<LoggedQuery, "collection">): void {
    this.onQuery?.({ collection: this.collectionName, ...clone(query) });
  }

  /** A value as the server receives it: through the driver's BSON serializer and back. */
  private wire<T>(value: T): T {
    if (!this.bson || value === undefined) return value;
    return this.bson.deserialize(this.bson.serialize({ value })).value as T;
  }

  // ---- reading -----------------------------------------------------------
  find(
    filter: Filter = {},
    options: { sort?: SortSpec; skip?: number; limit?: number; projection?: Document } = {},
  ): FakeCursor {
    const cursor = new FakeCursor(
      () => this.docs,
      () => clone(this.wire(filter)),
      (query) => this.logQuery(query),
    );
    if (options.sort) cursor.sort(options.sort);
    if (options.skip) cursor.skip(options.skip);
    if (options.limit) cursor.limit(options.limit);
    if (options.projection) cursor.project(options.projection);
    return cursor;
  }

  async findOne(
    filter: Filter = {},
    options: { sort?: SortSpec; projection?: Document } = {},
  ): Promise<Document | null> {
    const [doc] = await this.find(filter, { ...options, limit: 1 }).toArray();
    return doc ?? null;
  }

  /** The server answers from the collection's metadata; here, the documents held. */
  async estimatedDocumentCount(): Promise<number> {
    return this.docs.length;
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    const query = this.wire(filter);
    this.logQuery({ op: "count", filter: query });
    return this.docs.filter((doc) => matches(query, doc)).length;
  }

  aggregate(pipeline: Document[]): { toArray(): Promise<Document[]> } {
    return {
      toArray: async () => {
        const stages = clone(this.wire(pipeline));
        // Planned as the server plans it: the leading $match, and a $sort right after it (a $sort after other stages sorts in memory).
        const match = stages[0]?.$match as Document | undefined;
        const sort = (match ? stages[1] : stages[0])?.$sort as SortSpec | undefined;
        // A $sort of documents (not of $group's few groups) after other stages: every document matched is read and sorted.
        const sortAt = stages.findIndex((stage: Document) => "$sort" in stage);
        const grouped = stages.slice(0, Math.max(0, sortAt)).some((stage: Document) => "$group" in stage);
        const later = sortAt > (match ? 1 : 0) && !grouped;
        this.logQuery({
          op: "aggregate",
          filter: match ?? {},
          ...(sort ? { sort } : {}),
          ...(later && !sort ? { sortsInMemory: true } : {}),
        });
        return new Aggregator(stages, {}).run(this.docs.map(clone)) as Document[];
      },
    };
  }

  async indexes(): Promise<IndexInfo[]> {
    return clone(this.indexList);
  }

  // ---- writing -----------------------------------------------------------
  async insertOne(doc: Document): Promise<{ acknowledged: true; insertedId: unknown }> {
    return { acknowledged: true, insertedId: this.insert(doc) };
  }

  async insertMany(
    docs: Document[],
  ): Promise<{ acknowledged: true; insertedCount: number; insertedIds: Record<number, unknown> }> {
    const insertedIds: Record<number, unknown> = {};
    docs.forEach((doc, index) => (insertedIds[index] = this.insert(doc)));
    return { acknowledged: true, insertedCount: docs.length, insertedIds };
  }

  async updateOne(filter: Filter, update: Update, options: { upsert?: boolean } = {}) {
    this.logQuery({ op: "updateOne", filter: this.wire(filter) });
    return { acknowledged: true, ...this.update(this.wire(filter), this.wire(update), options.upsert === true, false) };
  }

  async updateMany(filter: Filter, update: Update, options: { upsert?: boolean } = {}) {
    this.logQuery({ op: "updateMany", filter: this.wire(filter) });
    return { acknowledged: true, ...this.update(this.wire(filter), this.wire(update), options.upsert === true, true) };
  }

  async findOneAndUpdate(
    sentFilter: Filter,
    sentUpdate: Update,
    options: { upsert?: boolean; returnDocument?: "before" | "after"; sort?: SortSpec; projection?: Document } = {},
  ): Promise<Document | null> {
    const filter = this.wire(sentFilter);
    const update = this.wire(sentUpdate);
    this.logQuery({ op: "findOneAndUpdate", filter, ...(options.sort ? { sort: options.sort } : {}) });
    const target = options.sort ? await this.findOne(filter, { sort: options.sort, projection: { _id: 1 } }) : null;
    const scope = target ? { _id: target._id } : filter;
    const before = this.docs.find((doc) => matches(scope, doc));
    const outcome = this.update(scope, update, options.upsert === true, false, filter);
    if (options.returnDocument !== "after") return before ? this.project(before, options.projection) : null;
    const id = outcome.upsertedId ?? before?._id;
    const after = this.docs.find((doc) => keyText(doc, ID_INDEX) === keyText({ _id: id }, ID_INDEX));
    return after ? this.project(after, options.projection) : null;
  }

  async deleteOne(sentFilter: Filter = {}): Promise<{ acknowledged: true; deletedCount: number }> {
    const filter = this.wire(sentFilter);
    this.logQuery({ op: "deleteOne", filter });
    const index = this.docs.findIndex((doc) => matches(filter, doc));
    if (index !== -1) this.docs.splice(index, 1);
    return { acknowledged: true, deletedCount: index === -1 ? 0 : 1 };
  }

  async deleteMany(sentFilter: Filter = {}): Promise<{ acknowledged: true; deletedCount: number }> {
    const filter = this.wire(sentFilter);
    this.logQuery({ op: "deleteMany", filter });
    const before = this.docs.length;
    this.docs = this.docs.filter((doc) => !matches(filter, doc));
    return { acknowledged: true, deletedCount: before - this.docs.length };
  }

  async bulkWrite(sentOperations: Document[], options: { ordered?: boolean } = {}) {
    const operations = this.wire(sentOperations);
    const result = {
      insertedCount: 0,
      matchedCount: 0,
      modifiedCount: 0,
      deletedCount: 0,
      upsertedCount: 0,
      upsertedIds: {} as Record<number, unknown>,
    };
    const writeErrors: Array<{ index: number; code: unknown; errmsg: string }> = [];
    for (const [index, operation] of operations.entries()) {
      try {
        this.bulkStep(operation, index, result);
      } catch (error) {
        writeErrors.push({ index, code: (error as { code?: unknown }).code, errmsg: (error as Error).message });
        if (options.ordered !== false) break;
      }
    }
    if (writeErrors.length > 0) {
      throw Object.assign(new Error(writeErrors[0].errmsg), {
        name: "MongoBulkWriteError",
        code: writeErrors[0].code,
        writeErrors,
        result,
      });
    }
    return { ok: 1, ...result };
  }

  async createIndex(
    key: Record<string, 1 | -1>,
    options: { unique?: boolean; name?: string; partialFilterExpression?: Document } = {},
  ): Promise<string> {
    const name =
      options.name ??
      Object.entries(key)
        .map(([field, order]) => `${field}_${order}`)
        .join("_");
    const existing = this.indexList.find((index) => index.name === name);
    if (existing) {
      const same =
        JSON.stringify(existing.key) === JSON.stringify(key) && existing.unique === (options.unique === true);
      if (!same)
        throw Object.assign(new Error(`Index ${name} exists with different options`), {
          name: "MongoServerError",
          code: 86,
        });
      return name;
    }
    const index: IndexInfo = {
      name,
      key: { ...key },
      unique: options.unique === true,
      partialFilterExpression: clone(this.wire(options.partialFilterExpression)),
    };
    if (index.unique) {
      const seen = new Set<string>();
      for (const doc of this.docs.filter((d) => this.covers(index, d))) {
        const text = keyText(doc, index);
        if (seen.has(text)) throw duplicateKeyError(this.collectionName, name);
        seen.add(text);
      }
    }
    this.indexList.push(index);
    return name;
  }

  async dropIndex(name: string): Promise<void> {
    const index = this.indexList.findIndex((entry) => entry.name === name);
    if (index === -1)
      throw Object.assign(new Error(`index not found with name [${name}]`), { name: "MongoServerError", code: 27 });
    this.indexList.splice(index, 1);
  }

  // ---- internals ---------------------------------------------------------
  private project(doc: Document, projection?: Document): Document {
    const copy = clone(doc);
    return projection ? (new Aggregator([{ $project: projection }], {}).run([copy])[0] as Document) : copy;
  }

  private covers(index: IndexInfo, doc: Document): boolean {
    return !index.partialFilterExpression || matches(index.partialFilterExpression, doc);
  }

  /** Throws the server's duplicate-key error when `doc` would break a unique index. */
  private checkUnique(doc: Document, replacing?: Document): void {
    for (const index of this.indexList) {
      if (!index.unique || !this.covers(index, doc)) continue;
      const text = keyText(doc, index);
      const clash = this.docs.some(
        (other) => other !== replacing && this.covers(index, other) && keyText(other, index) === text,
      );
      if (clash) throw duplicateKeyError(this.collectionName, index.name);
    }
  }

  private insert(input: Document): unknown {
    // The driver gives the caller's object its new _id before sending it.
    input._id ??= this.db.options.pkFactory.createPk();
    const doc = clone(this.wire(input));
    this.checkUnique(doc);
    this.docs.push(doc);
    return doc._id;
  }

  /** Applies an update to a copy of `doc`: the new document and whether anything changed. */
  private applied(doc: Document, update: Update, inserting: boolean): { next: Document; changed: boolean } {
    const spec = clone(update);
    let modifier: Update = spec;
    if (!Array.isArray(spec)) {
      const { $setOnInsert, ...rest } = spec;
      modifier = inserting && $setOnInsert ? { ...rest, $set: { ...(rest.$set ?? {}), ...$setOnInsert } } : rest;
      if (Object.keys(modifier).length === 0) return { next: clone(doc), changed: false };
    }
    const holder = [clone(doc)];
    const { modifiedCount } = applyUpdate(holder, {}, modifier as never);
    return { next: holder[0], changed: modifiedCount > 0 };
  }

  private update(
    filter: Filter,
    update: Update,
    upsert: boolean,
    many: boolean,
    seedFilter: Filter = filter,
  ): UpdateOutcome {
    const outcome: UpdateOutcome = { matchedCount: 0, modifiedCount: 0, upsertedCount: 0, upsertedId: null };
    const targets = this.docs.filter((doc) => matches(filter, doc));
    for (const doc of many ? targets : targets.slice(0, 1)) {
      outcome.matchedCount++;
      const { next, changed } = this.applied(doc, update, false);
      if (!changed) continue;
      this.checkUnique(next, doc);
      this.docs[this.docs.indexOf(doc)] = next;
      outcome.modifiedCount++;
    }
    if (targets.length === 0 && upsert) {
      if (Array.isArray(update)) throw new Error("fake-mongo: upsert with a pipeline update is not supported");
      const { next } = this.applied(seedFromFilter(seedFilter), update, true);
      outcome.upsertedId = this.insert(next);
      outcome.upsertedCount = 1;
    }
    return outcome;
  }

  private bulkStep(operation: Document, index: number, result: Document): void {
    const [kind, spec] = Object.entries(operation)[0] as [string, Document];
    if (kind !== "insertOne") this.logQuery({ op: `bulk ${kind}`, filter: spec.filter });
    if (kind === "insertOne") {
      this.insert(spec.document);
      result.insertedCount++;
    } else if (kind === "updateOne" || kind === "updateMany") {
      const outcome = this.update(spec.filter, spec.update, spec.upsert === true, kind === "updateMany");
      result.matchedCount += outcome.matchedCount;
      result.modifiedCount += outcome.modifiedCount;
      if (outcome.upsertedCount > 0) {
        result.upsertedCount++;
        result.upsertedIds[index] = outcome.upsertedId;
      }
    } else if (kind === "deleteOne" || kind === "deleteMany") {
      const before = this.docs.length;
      const hit = this.docs.filter((doc) => matches(spec.filter, doc));
      const doomed = new Set(kind === "deleteOne" ? hit.slice(0, 1) : hit);
      this.docs = this.docs.filter((doc) => !doomed.has(doc));
      result.deletedCount += before - this.docs.length;
    } else {
      throw new Error(`fake-mongo: bulk operation ${kind} is not supported`);
    }
  }
}

/**
 * A new, empty in-memory database (test double, not MongoDB). It is typed as
 * the driver's `Db` so it can stand in for `Indiekit.database` and the
 * adapters accept its collections, but only `collection(name)` exists
 * (collections are created on first use), and each collection has only the
 * methods listed at the top of this file.
 */
export function createFakeDb(options: { bson?: BsonLibrary; onQuery?: (query: LoggedQuery) => void } = {}): Db {
  const collections = new Map<string, FakeCollection>();
  const bson = options.bson ?? null;
  const ObjectIdClass = bson?.ObjectId ?? ObjectId;
  const db = {
    options: { pkFactory: { createPk: () => new ObjectIdClass() } },
    collection(name: string): Collection {
      let collection = collections.get(name);
      if (!collection) {
        collection = new FakeCollection(name, db, bson, options.onQuery ?? null);
        collections.set(name, collection);
      }
      return collection as unknown as Collection;
    },
  };
  return db as unknown as Db;
}
