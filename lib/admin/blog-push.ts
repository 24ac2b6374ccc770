import type { Response } from "express";
import type { BlogrollContext } from "../context.js";
import type { Blog, PushSubscription } from "../storage/types.js";

type Translate = (key: string, values?: Record<string, unknown>) => string;

/** One subscription in words, for the blog's page. */
function describeSubscription(
  subscription: PushSubscription,
  __: Translate,
  formatDate: (date: Date) => string,
  now: Date,
): string[] {
  const hub = subscription.hub;
  const lines: string[] = [];
  if (subscription.distrustedUntil && subscription.distrustedUntil > now) {
    lines.push(__("blogroll.push.distrusted", { until: formatDate(subscription.distrustedUntil) }));
  } else if (subscription.state === "active" && subscription.expiresAt && subscription.expiresAt <= now) {
    // A lease that ran out is never shown as current (a renewal the hub has not confirmed yet).
    lines.push(__("blogroll.push.leaseEnded", { hub, until: formatDate(subscription.expiresAt) }));
  } else if (subscription.state === "active" && subscription.expiresAt) {
    const until = formatDate(subscription.expiresAt);
    lines.push(
      subscription.kind === "websub"
        ? __("blogroll.push.websubActive", { hub, until })
        : __("blogroll.push.cloudActive", { hub, until }),
    );
  } else if (subscription.state === "requested") {
    lines.push(
      __("blogroll.push.requested", { hub, at: subscription.requestedAt ? formatDate(subscription.requestedAt) : "" }),
    );
  } else if (subscription.state === "denied") {
    lines.push(__("blogroll.push.denied", { hub }));
  } else if (subscription.state === "failed") {
    lines.push(__("blogroll.push.failed", { hub }));
  } else if (subscription.state === "unsubscribing") {
    lines.push(__("blogroll.push.unsubscribing", { hub }));
  }
  if (subscription.lastNotifiedAt)
    lines.push(__("blogroll.push.lastNotified", { at: formatDate(subscription.lastNotifiedAt) }));
  if (subscription.lastError) lines.push(__("blogroll.push.error", { error: subscription.lastError }));
  return lines;
}

/**
 * How a blog is pushed, in sentences for its admin page: the hub and the
 * lease, a request waiting for verification, a refusal, or why no
 * subscription can be made on this server at all.
 */
export async function blogPushLines(context: BlogrollContext, response: Response, blog: Blog): Promise<string[]> {
  const __ = response.locals.__ as Translate;
  const formatDate = response.locals.formatDate as (date: Date) => string;
  const address = context.push.address();
  const url = context.push.offeredUrl() ?? "";
  if (!address.ok) {
    switch (address.reason) {
      case "disabled":
        return [__("blogroll.push.off")];
      case "no-public-url":
        return [__("blogroll.push.noPublicUrl")];
      case "private-address":
        return [__("blogroll.push.privateUrl", { url })];
      case "bad-public-url":
        return [__("blogroll.push.badUrl", { url })];
    }
  }
  if (blog.skipItemFetch) return [];
  const subscriptions = await (await context.getStorage()).push.listByBlog(blog.id);
  if (subscriptions.length === 0) return [__("blogroll.push.none")];
  const now = new Date();
  return subscriptions.flatMap((subscription) => describeSubscription(subscription, __, formatDate, now));
}
