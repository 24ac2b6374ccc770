import { mkdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { StorageError } from "../types.js";

/** What every SQLite store module shares: the connection, its statements, its error handling. */
export interface SqliteContext {
  readonly db: Database.Database;
  /** A prepared statement for this SQL text, prepared once and reused. */
  statement(sql: string): Database.Statement;
  /** Runs `work` in one `BEGIN IMMEDIATE` transaction (a savepoint when already inside one). */
  write<T>(work: () => T): T;
  /** Runs `work`, turning any driver error into a StorageError named after `operation`. */
  guard<T>(operation: string, work: () => T): Promise<T>;
}

/** How long a writer waits for another process's lock before giving up. */
const BUSY_TIMEOUT_MS = 5000;

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
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma("foreign_keys = ON");
  } catch (error) {
    throw toStorageError("open", error);
  }
  const statements = new Map<string, Database.Statement>();
  const transaction = db.transaction((work: () => unknown) => work());
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
      }
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
