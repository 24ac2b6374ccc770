import type { PushSubscription } from "../storage/types.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Lease asked of WebSub hubs: ten days (hubs may grant less; the answer is what counts). */
export const REQUESTED_LEASE_SECONDS = 10 * 24 * 3600;
/** rssCloud registrations last 25 hours; they are renewed after 24. */
export const CLOUD_LIFETIME_MS = 25 * HOUR;
export const CLOUD_RENEW_AFTER_MS = 24 * HOUR;
/** A request the hub never verified is asked again after this. */
export const VERIFY_WAIT_MS = HOUR;
/** After a failed request (network, hub error) the next attempt waits this long. */
export const RETRY_FAILED_MS = 6 * HOUR;
/** After a hub's `denied` the blog is polled; subscribing is tried again after this. */
export const RETRY_DENIED_MS = 7 * DAY;
/** A safety poll that found posts the push had not brought makes the push untrusted this long. */
export const DISTRUST_MS = DAY;
/** An unsubscription the hub never confirmed is forgotten after this. */
export const UNSUBSCRIBE_WAIT_MS = HOUR;

/** When a verified lease should be renewed: a tenth of it before its end, at least a minute and at most a day before. */
export function renewAt(subscription: PushSubscription): Date | null {
  if (!subscription.expiresAt) return null;
  if (subscription.kind === "rsscloud") {
    const from = subscription.verifiedAt ?? subscription.requestedAt ?? subscription.expiresAt;
    return new Date(from.getTime() + CLOUD_RENEW_AFTER_MS);
  }
  const leaseMs = (subscription.leaseSeconds ?? REQUESTED_LEASE_SECONDS) * 1000;
  const margin = Math.min(DAY, Math.max(60_000, leaseMs / 10), leaseMs / 2);
  return new Date(subscription.expiresAt.getTime() - margin);
}

/**
 * True while the blog's posts are pushed: verified, lease not run out, and
 * not distrusted by a safety poll. This is the schedule's "push active".
 */
export function pushActive(subscription: PushSubscription, now: Date): boolean {
  return (
    subscription.state === "active" &&
    subscription.expiresAt !== null &&
    subscription.expiresAt > now &&
    !(subscription.distrustedUntil && subscription.distrustedUntil > now)
  );
}

/** True when the subscription should be (re)requested now. */
export function requestDue(subscription: PushSubscription, now: Date): boolean {
  const since = (date: Date | null) => (date ? now.getTime() - date.getTime() : Number.POSITIVE_INFINITY);
  switch (subscription.state) {
    case "active": {
      if (subscription.distrustedUntil) return subscription.distrustedUntil <= now;
      const renew = renewAt(subscription);
      return renew === null || renew <= now;
    }
    case "requested":
      return since(subscription.requestedAt) >= VERIFY_WAIT_MS;
    case "failed":
      return since(subscription.updatedAt) >= RETRY_FAILED_MS;
    case "denied":
      return since(subscription.updatedAt) >= RETRY_DENIED_MS;
    case "unsubscribing":
      return false;
  }
}
