import type { PushKind, PushState, PushStore, PushSubscription } from "../types.js";
import type { SqliteContext } from "./database.js";
import { fromIso, toIso, toIsoOrNull } from "./rows.js";

interface PushRow {
  id: string;
  blog_id: string;
  kind: PushKind;
  hub: string;
  topic: string;
  callback_token: string;
  secret: string | null;
  state: PushState;
  lease_seconds: number | null;
  expires_at: string | null;
  last_error: string | null;
  requested_at: string | null;
  verified_at: string | null;
  last_notified_at: string | null;
  distrusted_until: string | null;
  created_at: string;
  updated_at: string;
}

const COLUMNS: ReadonlyArray<keyof PushRow> = [
  "id",
  "blog_id",
  "kind",
  "hub",
  "topic",
  "callback_token",
  "secret",
  "state",
  "lease_seconds",
  "expires_at",
  "last_error",
  "requested_at",
  "verified_at",
  "last_notified_at",
  "distrusted_until",
  "created_at",
  "updated_at",
];

function toRow(s: PushSubscription): PushRow {
  return {
    id: s.id,
    blog_id: s.blogId,
    kind: s.kind,
    hub: s.hub,
    topic: s.topic,
    callback_token: s.callbackToken,
    secret: s.secret,
    state: s.state,
    lease_seconds: s.leaseSeconds,
    expires_at: toIsoOrNull(s.expiresAt),
    last_error: s.lastError,
    requested_at: toIsoOrNull(s.requestedAt),
    verified_at: toIsoOrNull(s.verifiedAt),
    last_notified_at: toIsoOrNull(s.lastNotifiedAt),
    distrusted_until: toIsoOrNull(s.distrustedUntil),
    created_at: toIso(s.createdAt),
    updated_at: toIso(s.updatedAt),
  };
}

function fromRow(row: PushRow): PushSubscription {
  return {
    id: row.id,
    blogId: row.blog_id,
    kind: row.kind,
    hub: row.hub,
    topic: row.topic,
    callbackToken: row.callback_token,
    secret: row.secret,
    state: row.state,
    leaseSeconds: row.lease_seconds,
    expiresAt: fromIso(row.expires_at),
    lastError: row.last_error,
    requestedAt: fromIso(row.requested_at),
    verifiedAt: fromIso(row.verified_at),
    lastNotifiedAt: fromIso(row.last_notified_at),
    distrustedUntil: fromIso(row.distrusted_until),
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

const UPSERT = `INSERT INTO push_subscriptions (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map((c) => `@${c}`).join(", ")})
  ON CONFLICT (id) DO UPDATE SET ${COLUMNS.filter((c) => c !== "id")
    .map((c) => `${c} = excluded.${c}`)
    .join(", ")}`;

/** The push_subscriptions table behind the PushStore port. */
export function createSqlitePushStore(ctx: SqliteContext): PushStore {
  const all = (sql: string, ...params: unknown[]) => (ctx.statement(sql).all(...params) as PushRow[]).map(fromRow);
  const one = (sql: string, ...params: unknown[]) => {
    const row = ctx.statement(sql).get(...params) as PushRow | undefined;
    return row ? fromRow(row) : null;
  };
  return {
    put: (subscription) =>
      ctx.guard("push.put", () =>
        ctx.write(() => {
          ctx
            .statement("DELETE FROM push_subscriptions WHERE blog_id = ? AND kind = ? AND id <> ?")
            .run(subscription.blogId, subscription.kind, subscription.id);
          ctx.statement(UPSERT).run(toRow(subscription));
        }),
      ),
    get: (id) => ctx.guard("push.get", () => one("SELECT * FROM push_subscriptions WHERE id = ?", id)),
    getByToken: (token) =>
      ctx.guard("push.getByToken", () => one("SELECT * FROM push_subscriptions WHERE callback_token = ?", token)),
    listByBlog: (blogId) =>
      ctx.guard("push.listByBlog", () =>
        all("SELECT * FROM push_subscriptions WHERE blog_id = ? ORDER BY kind", blogId),
      ),
    listByTopic: (kind, topic) =>
      ctx.guard("push.listByTopic", () =>
        all("SELECT * FROM push_subscriptions WHERE kind = ? AND topic = ? ORDER BY id", kind, topic),
      ),
    list: () => ctx.guard("push.list", () => all("SELECT * FROM push_subscriptions ORDER BY id")),
    noteNotified: (id, at) =>
      ctx.guard(
        "push.noteNotified",
        () => void ctx.statement("UPDATE push_subscriptions SET last_notified_at = ? WHERE id = ?").run(toIso(at), id),
      ),
    delete: (id) =>
      ctx.guard("push.delete", () => ctx.statement("DELETE FROM push_subscriptions WHERE id = ?").run(id).changes > 0),
  };
}
