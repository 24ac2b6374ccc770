import { isIP } from "node:net";
import { isBlockedAddress } from "../http/address-policy.js";
import { publicMountUrl } from "../url/normalise.js";

/** Where hubs call back, or why no subscription can be made. */
export type PushAddress =
  | { ok: true; /** The public URL the callbacks hang under: base + mount path. */ callbackBase: string }
  | { ok: false; reason: "disabled" | "no-public-url" | "private-address" | "bad-public-url" };

/** True for a host name that only this machine or its network can reach. */
function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal"))
    return true;
  return isIP(host) !== 0 && isBlockedAddress(host);
}

/**
 * The public address callbacks are offered at. None when push is off, when
 * there is no public URL, or when the URL is loopback or private and
 * private networks are not allowed (a hub on the internet could never call
 * it back: asking would only waste the hub's and our requests).
 */
export function pushAddress(input: {
  push: boolean;
  publicUrl: string | null;
  mountPath: string;
  allowPrivateNetworks: boolean;
}): PushAddress {
  if (!input.push) return { ok: false, reason: "disabled" };
  if (!input.publicUrl) return { ok: false, reason: "no-public-url" };
  let url: URL;
  try {
    url = new URL(input.publicUrl);
  } catch {
    return { ok: false, reason: "bad-public-url" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "bad-public-url" };
  if (!input.allowPrivateNetworks && isPrivateHost(url.hostname)) return { ok: false, reason: "private-address" };
  return { ok: true, callbackBase: publicMountUrl(input.publicUrl, input.mountPath) };
}
