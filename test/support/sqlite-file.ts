import Database from "better-sqlite3";
import { keepForever } from "../../lib/storage/sqlite/database.js";

/**
 * A better-sqlite3 connection for tests that read a database file directly.
 * Like the adapter's own, it and every statement it prepares are never left
 * to the garbage collector, which aborts the process on Node 24 (see
 * lib/storage/sqlite/database.ts); `pragma()` goes through the same kept
 * statements.
 */
export function openSqliteFile(file: string, options?: Database.Options): Database.Database {
  const db = keepForever(new Database(file, options));
  const prepare = db.prepare.bind(db);
  db.prepare = ((source: string) => keepForever(prepare(source))) as typeof db.prepare;
  db.pragma = ((source: string, pragmaOptions?: Database.PragmaOptions) => {
    const statement = db.prepare(`PRAGMA ${source}`);
    if (!statement.reader) return statement.run();
    return pragmaOptions?.simple ? statement.pluck().get() : statement.all();
  }) as typeof db.pragma;
  return db;
}
