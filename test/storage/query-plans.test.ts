/**
 * Every SQL statement a sync, the public API and the admin's blogs pages
 * prepare, planned by SQLite (EXPLAIN QUERY PLAN): none reads every row of
 * the blogs or items, so the cost of a fetch, an API request or an admin
 * page does not grow with the blogroll, and none sorts every public blog
 * for a page. What may walk a table or index is listed below with its reason.
 */
import { makeEveryQuery } from "./every-query.js";
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Database from "better-sqlite3";
import { closeParsePool } from "../../lib/sync/parse-pool.js";
import { startFeedFixture, type FeedFixture } from "../../bench/support/fixture-server.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { openSqliteFile } from "../support/sqlite-file.js";

const BLOGS = 30;

/** Every SQL text prepared in this process from now on (better-sqlite3 prepares each statement the adapter runs). */
const prepared = new Set<string>();
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (this: Database.Database, sql: string) {
  prepared.add(sql);
  return prepare.call(this, sql);
} as typeof prepare;

/**
 * Plans that visit every entry of an index, allowed because they read the
 * index alone (small entries, no row) or stop at a page's LIMIT.
 */
const WALKS: Array<{ plan: RegExp; when?: RegExp; why: string }> = [
  {
    plan: /SCAN b USING COVERING INDEX (blogs_by_state|blogs_public)/,
    why: "counts read a state index alone, never the blogs' rows",
  },
  {
    plan: /SCAN (b|blogs) USING (COVERING )?INDEX (blogs_by_title|blogs_by_recent)\b/,
    when: /\bLIMIT\b/,
    why: "a page in list order stops at its LIMIT",
  },
  {
    plan: /SCAN (blogs|b)\b(?! USING)/,
    when: /instr\(b\.title_sort/,
    why: "the admin's substring search reads every title (10 000 blogs: see BENCHMARKS.md)",
  },
];

/** Tables a statement must never walk whole. */
const WATCHED = /\bSCAN (blogs|b|items|i|recommendations|r|blog_blogrolls|blog_origins|push_subscriptions|meta)\b/;

/**
 * A page read through blogs_public, an index of nearly every blog, and then
 * sorted: every public blog read and sorted at each request, to keep a page.
 */
const SORTS_EVERY_PUBLIC_BLOG = /USING (COVERING )?INDEX blogs_public\b.*USE TEMP B-TREE FOR ORDER BY/;

function planOf(db: Database.Database, sql: string): string {
  const statement = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
  const names = [...new Set([...sql.matchAll(/[@:$](\w+)/g)].map((match) => match[1]))];
  const positional = (sql.match(/\?/g) ?? []).length;
  const rows = (
    names.length > 0
      ? statement.all(Object.fromEntries(names.map((name) => [name, null])))
      : statement.all(...Array(positional).fill(null))
  ) as {
    detail: string;
  }[];
  return rows.map((row) => row.detail).join(" | ");
}

describe("query plans: a sync, the API and the admin read index ranges, not whole tables (SQLite)", () => {
  let fixture: FeedFixture;
  let server: TestServer;

  before(async () => {
    fixture = await startFeedFixture({ feeds: BLOGS, hosts: 3, delayMs: 0, homePages: true });
    server = await startTestServer("sqlite", { mongodbUrl: null });
    // The migrations ran at start, once per database: not counted.
    prepared.clear();
    await makeEveryQuery(server, fixture, BLOGS);
  });

  after(async () => {
    await server.close();
    await fixture.close();
    await closeParsePool();
  });

  it("plans every statement prepared and finds no walk over a whole table but the listed ones", async () => {
    const file = server.plugin.settings.databasePath;
    const db = openSqliteFile(file, { readonly: true });
    const walks: string[] = [];
    try {
      for (const sql of [...prepared]) {
        if (!/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH)\b/i.test(sql) || /\bsqlite_master\b/.test(sql)) continue;
        const plan = planOf(db, sql);
        if (SORTS_EVERY_PUBLIC_BLOG.test(plan)) {
          walks.push(`${sql.replace(/\s+/g, " ")}\n    -> ${plan}`);
          continue;
        }
        if (!WATCHED.test(plan)) continue;
        const allowed = WALKS.some(
          (walk) =>
            walk.plan.test(plan) &&
            (!walk.when || walk.when.test(sql)) &&
            !plan.split(" | ").some((step) => WATCHED.test(step) && !walk.plan.test(step)),
        );
        if (!allowed) walks.push(`${sql.replace(/\s+/g, " ")}\n    -> ${plan}`);
      }
    } finally {
      db.close();
    }
    assert.ok(prepared.size > 40, `statements seen: ${prepared.size}`);
    assert.deepEqual(walks, []);
  });
});
