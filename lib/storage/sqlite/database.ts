import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { StorageError } from "../types.js";
import { BACKSTOP_PAGES, startCheckpointer, type CheckpointResult } from "./checkpointer.js";

/** What every SQLite store module shares: the connection, its statements, its error handling. */
export interface SqliteContext {
  readonly db: Database.Database;
  /** A prepared statement for this SQL text, prepared once and reused. */
  statement(sql: string): Database.Statement;
  /** Runs `work` in one `BEGIN IMMEDIATE` transaction (a savepoint when already inside one). */
  write<T>(work: () => T): T;
  /** Runs `work`, turning any driver error into a StorageError named after `operation`. */
  guard<T>(operation: string, work: () => T): Promise<T>;
  /** Copies the write-ahead log into the database now, off this thread (lib/storage/sqlite/checkpointer.ts); null for ":memory:". */
  checkpoint(): Promise<CheckpointResult | null>;
  /** Closes the connection, then the checkpoint worker's (resolved once both are closed). */
  close(): Promise<void>;
}

/** How long a writer waits for another process's lock before giving up. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The page cache of the connection, in KiB: SQLite's own default (2 MB).
 * better-sqlite3 builds SQLite with 16 MB, which a first sync fills and
 * keeps for the life of the process (about 20 MB of peak RSS measured by
 * bench/sync-memory.ts); the operating system's file cache still holds the
 * pages read, so a page outside this cache costs a read from memory, not disk.
 */
export const SQLITE_CACHE_KIB = 2000;

/**
 * better-sqlite3 12 on Node 24 aborts the process when the garbage collector
 * destroys one of its objects (a Database or Statement): Node 24's ObjectWrap
 * destructor asks for the current environment, which a GC pass outside any
 * context does not have ("Assertion failed: (env) != nullptr"). So no
 * statement is ever left for the collector: every one is prepared once and
 * kept, `pragma()` (which prepares and drops one) is not used, and a closed
 * database stays referenced with its statements. Version 13 needs Node 22.
 */
const keptForever: unknown[] = [];

/** Keeps a better-sqlite3 object from the garbage collector for the life of the process (see keptForever). */
export function keepForever<T>(value: T): T {
  keptForever.push(value);
  return value;
}

/** A prepared statement kept for the life of the process (see keptForever). */
export function keptStatement(db: Database.Database, sql: string): Database.Statement {
  const statement = db.prepare(sql);
  keptForever.push(statement);
  return statement;
}

/**
 * Opens (creating if needed) the database file and its parent folder, and
 * sets the connection pragmas. Tables come later, from the migrations.
 */
export function openSqlite(file: string): SqliteContext {
  let db: Database.Database;
  try {
    if (file !== ":memory:") mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    db = new Database(file);
    // WAL lets readers (the API) run while a sync writes; NORMAL sync is safe with WAL.
    db.exec(
      `PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA foreign_keys = ON; ` +
        `PRAGMA cache_size = -${SQLITE_CACHE_KIB};`,
    );
  } catch (error) {
    throw toStorageError("open", error);
  }
  const statements = new Map<string, Database.Statement>();
  keptForever.push(db, statements);
  const transaction = db.transaction((work: () => unknown) => work());
  const checkpointer =
    file === ":memory:"
      ? null
      : // Without its worker the connection checkpoints again as SQLite does by default.
        startCheckpointer(file, BUSY_TIMEOUT_MS, () => db.open && db.exec("PRAGMA wal_autocheckpoint = 1000"));
  if (checkpointer) db.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  // Rows written so far by this connection, whatever the path (a transaction or a lone statement): a change asks for a checkpoint.
  const totalChanges = keptStatement(db, "SELECT total_changes() AS n").pluck();
  let changesSeen = 0;
  const noteWrites = () => {
    if (!checkpointer || !db.open) return;
    const changes = totalChanges.get() as number;
    if (changes === changesSeen) return;
    changesSeen = changes;
    checkpointer.wrote();
  };
  return {
    db,
    statement(sql) {
      let prepared = statements.get(sql);
      if (!prepared) {
        prepared = db.prepare(sql);
        statements.set(sql, prepared);
      }
      return prepared;
    },
    write<T>(work: () => T): T {
      return transaction.immediate(work) as T;
    },
    async guard<T>(operation: string, work: () => T): Promise<T> {
      try {
        return work();
      } catch (error) {
        throw toStorageError(operation, error);
      } finally {
        noteWrites();
      }
    },
    checkpoint: async () => (checkpointer ? checkpointer.checkpoint() : null),
    async close() {
      if (db.open) db.close();
      await checkpointer?.close();
    },
  };
}

/** A StorageError whose message names the operation and the driver's reason, never SQL text or a stack. */
export function toStorageError(operation: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  const code = typeof (error as { code?: unknown })?.code === "string" ? ` [${(error as { code: string }).code}]` : "";
  const reason = error instanceof Error ? error.message.split("\n")[0].slice(0, 200) : "unknown error";
  return new StorageError(`SQLite ${operation} failed${code}: ${reason}`, { cause: error });
}
