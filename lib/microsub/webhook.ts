import { isListed } from "../storage/provenance.js";
import { OWNER_ORIGIN, type Storage } from "../storage/types.js";
import { parseHttpUrl } from "../url/http-url.js";
import { feedUrlKey } from "../url/normalise.js";
import type { MicrosubStore } from "./types.js";

export interface WebhookResponse {
  status: number;
  body: Record<string, unknown>;
}

const FOLLOW = new Set(["follow", "subscribe"]);
const UNFOLLOW = new Set(["unfollow", "unsubscribe"]);

// The earlier plugin's result values, which existing callers know.
const ok = (action: "added" | "deactivated" | "skipped", reason?: string): WebhookResponse => ({
  status: 200,
  body: reason === undefined ? { ok: true, action } : { ok: true, action, reason },
});

const badRequest = (error: string): WebhookResponse => ({ status: 400, body: { ok: false, error } });

function optionalText(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** The Microsub feed and channel behind a followed URL, so the blog's items are read from Microsub. */
async function findMicrosubFeed(microsub: MicrosubStore | null | undefined, url: string) {
  if (!microsub) return null;
  const key = feedUrlKey(url);
  const feed = (await microsub.listFeeds()).find((candidate) => feedUrlKey(candidate.url) === key);
  if (!feed) return null;
  const channel = (await microsub.listChannels()).find((candidate) => candidate.id === feed.channelId) ?? null;
  return { feed, channel };
}

async function follow(
  storage: Storage,
  microsub: MicrosubStore | null | undefined,
  url: URL,
  body: Record<string, unknown>,
): Promise<WebhookResponse> {
  const existing = await storage.blogs.getByFeedUrl(url.href);
  if (existing?.status === "deleted") return ok("skipped", "deleted");
  const channelName = optionalText(body.channelName);
  // Listed already: the owner's follow is recorded beside its other origins, nothing else changes.
  if (existing && isListed(existing)) {
    await storage.blogs.upsertFromSource({ feedUrl: url.href, source: "microsub", category: channelName });
    return ok("skipped", "already_exists");
  }

  const found = await findMicrosubFeed(microsub, url.href);
  const channel = channelName ?? found?.channel?.name ?? null;
  // The owner follows it (in their reader): the owner lists it, filed under the channel.
  const { outcome } = await storage.blogs.upsertFromSource({
    feedUrl: url.href,
    title: optionalText(body.title) ?? optionalText(found?.feed.title),
    feed: { siteUrl: `${url.origin}/` },
    category: channel ?? "Microsub",
    source: "microsub",
    microsubFeedId: found?.feed.id ?? null,
    microsubChannelId: found?.feed.channelId ?? null,
    microsubChannelName: channel,
    // Items come from Microsub when we know its feed; otherwise our scheduler fetches the feed.
    skipItemFetch: found !== null,
    photo: found?.feed.photo ?? null,
  });
  // Listed again is, to the caller, added.
  if (outcome === "added" || outcome === "reactivated") return ok("added");
  if (outcome === "skipped-deleted") return ok("skipped", "deleted");
  return ok("skipped", "already_exists");
}

/**
 * The owner unfollowed it in Microsub: deleted, unless an origin outside
 * Microsub lists it too (then only the owner's follow is forgotten).
 */
async function unfollow(storage: Storage, url: URL): Promise<WebhookResponse> {
  const blog = await storage.blogs.getByFeedUrl(url.href);
  if (!blog) return ok("skipped", "not_found");
  if (blog.status === "deleted") return ok("skipped", "already_deleted");
  if (!blog.origins.some((origin) => origin.kind === "microsub")) return ok("skipped", "not_microsub");
  if (blog.origins.every((origin) => origin.kind === "microsub")) await storage.blogs.softDelete(blog.id);
  else if (blog.origins.some((origin) => origin.id === OWNER_ORIGIN && origin.kind === "microsub"))
    await storage.blogs.unlist(OWNER_ORIGIN, { only: [blog.id] });
  return ok("deactivated");
}

/**
 * Handles a subscription-change notification from the Microsub integration
 * (spec 4.9). `follow`/`subscribe` add or re-activate a blog (source
 * "microsub") unless the owner deleted it; `unfollow`/`unsubscribe`
 * soft-delete the Microsub blog with that URL. Idempotent: a repeat is
 * answered `skipped` with a reason. `microsub`, when given, links the blog to
 * its Microsub feed so its items are read from there.
 */
export async function handleMicrosubWebhook(
  storage: Storage,
  body: unknown,
  microsub?: MicrosubStore | null,
): Promise<WebhookResponse> {
  const fields =
    body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const { action, url } = fields;
  if (typeof action !== "string" || typeof url !== "string" || action.trim() === "" || url.trim() === "") {
    return badRequest("Missing required fields: action and url");
  }
  const verb = action.trim().toLowerCase();
  if (!FOLLOW.has(verb) && !UNFOLLOW.has(verb)) return badRequest("Unknown action");
  const feedUrl = parseHttpUrl(url);
  if (!feedUrl) return badRequest("Invalid url");
  return FOLLOW.has(verb) ? follow(storage, microsub, feedUrl, fields) : unfollow(storage, feedUrl);
}
