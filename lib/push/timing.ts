import type { PushSubscription } from "../storage/types.js";
import { DAY, HOUR } from "../time/durations.js";

/** Lease asked of WebSub hubs: ten days (hubs may grant less; the answer is what counts, up to this). */
export const REQUESTED_LEASE_SECONDS = 10 * 24 * 3600;
/** rssCloud registrations last 25 hours; they are renewed after 24. */
export const CLOUD_LIFETIME_MS = 25 * HOUR;
export const CLOUD_RENEW_AFTER_MS = 24 * HOUR;
/** How long a request of ours waits for the hub's verification: its window (later verifications are refused). */
export const VERIFY_WAIT_MS = HOUR;
/** After a failed request (network, hub error, no verification) the next attempt waits this long. */
export const RETRY_FAILED_MS = 6 * HOUR;
/** After a hub's `denied` the blog is polled; subscribing is tried again after this. */
export const RETRY_DENIED_MS = 7 * DAY;
/** A safety poll that found posts the push had not brought makes the push untrusted this long. */
export const DISTRUST_MS = DAY;
/** An unsubscription the hub never confirmed is forgotten after this. */
export const UNSUBSCRIBE_WAIT_MS = HOUR;

/** When a verified lease should be renewed: a tenth of it before its end, at least a minute and at most a day before, never past its middle. */
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

/** True when a (re)request of ours has been sent and not yet verified (a first request, or a renewal while the old lease runs). */
export function requestPending(subscription: PushSubscription): boolean {
  if (subscription.state === "requested") return true;
  const { requestedAt, verifiedAt } = subscription;
  return subscription.state === "active" && requestedAt !== null && (verifiedAt === null || requestedAt > verifiedAt);
}

/** True while a hub may verify our pending request: sent, not yet verified, within VERIFY_WAIT_MS. */
export function verificationOpen(subscription: PushSubscription, now: Date): boolean {
  const { requestedAt } = subscription;
  return (
    requestPending(subscription) && requestedAt !== null && now.getTime() - requestedAt.getTime() <= VERIFY_WAIT_MS
  );
}

const after = (date: Date | null, ms: number) => new Date((date?.getTime() ?? 0) + ms);

/**
 * When something next happens to a subscription if nothing else does: a
 * renewal, a retry, a pending request given up (at the end of its window, or
 * of the lease it was to extend), an unconfirmed unsubscription forgotten.
 * The keeper's timer is set at the earliest of these.
 */
export function dueAt(subscription: PushSubscription): Date {
  switch (subscription.state) {
    case "unsubscribing":
      return after(subscription.updatedAt, UNSUBSCRIBE_WAIT_MS);
    case "failed":
      return after(subscription.updatedAt, RETRY_FAILED_MS);
    case "denied":
      return after(subscription.updatedAt, RETRY_DENIED_MS);
    case "requested":
      return after(subscription.requestedAt, VERIFY_WAIT_MS);
    case "active": {
      if (subscription.distrustedUntil) return subscription.distrustedUntil;
      if (requestPending(subscription)) {
        const retry = after(subscription.requestedAt, VERIFY_WAIT_MS);
        return subscription.expiresAt && subscription.expiresAt < retry ? subscription.expiresAt : retry;
      }
      return renewAt(subscription) ?? new Date(0);
    }
  }
}

/** What is due for a subscription now: ask the hub again, give the request up as failed, forget it, or nothing. */
export type DueAction = "request" | "fail" | "forget" | null;

export function dueAction(subscription: PushSubscription, now: Date): DueAction {
  if (dueAt(subscription) > now) return null;
  switch (subscription.state) {
    case "unsubscribing":
      return "forget";
    case "failed":
    case "denied":
      return "request";
    case "requested":
      // Never verified within its window: failed, retried after RETRY_FAILED_MS.
      return "fail";
    case "active":
      // A renewal that was not confirmed before the lease ran out is a failed subscription; one still inside its lease is asked again.
      if (
        !subscription.distrustedUntil &&
        requestPending(subscription) &&
        subscription.expiresAt &&
        subscription.expiresAt <= now
      )
        return "fail";
      return "request";
  }
}
