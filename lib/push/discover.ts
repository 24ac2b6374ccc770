import type { PushLinks } from "../feeds/types.js";

/** A WebSub subscription to make: the hub, and the topic URL to name. */
export interface WebSubTarget {
  hub: string;
  topic: string;
}

/** An rssCloud registration to make: the server's endpoint and the feed URL to register. */
export interface CloudTarget {
  /** http://domain:port/path of the cloud server. */
  endpoint: string;
  feedUrl: string;
}

export interface PushTargets {
  websub: WebSubTarget | null;
  cloud: CloudTarget | null;
}

/** What one fetch of a feed told: its final URL, its Link header, what its body announced. */
export interface FetchedFeed {
  url: string;
  link: string | null;
  push?: PushLinks;
}

/**
 * `rel` → URLs of an HTTP Link header (RFC 8288), resolved against `base`.
 * Only what WebSub needs: `<uri>; rel="a b"` fields, separated by commas;
 * other parameters are skipped and a field that does not parse is left out.
 */
export function parseLinkHeader(header: string | null, base: string): Map<string, string[]> {
  const rels = new Map<string, string[]>();
  if (!header) return rels;
  const field = /<([^>]*)>((?:\s*;\s*[^;,=\s]+(?:\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;,\s]*))?)*)/g;
  for (const match of header.matchAll(field)) {
    let target: string;
    try {
      target = new URL(match[1].trim(), base).href;
    } catch {
      continue;
    }
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^;,\s]*))/i.exec(match[2]);
    for (const name of (rel?.[1] ?? rel?.[2] ?? "").toLowerCase().split(/\s+/).filter(Boolean)) {
      const list = rels.get(name) ?? [];
      if (!list.includes(target)) list.push(target);
      rels.set(name, list);
    }
  }
  return rels;
}

const isHttp = (url: string) => /^https?:\/\//i.test(url);

/**
 * Where a feed pushes, as WebSub discovery (section 4 of the Recommendation)
 * reads it: the response's Link header first, then the hub and self links
 * of the document; the topic is `self`, else the URL fetched (after
 * redirects). Only the first http(s) hub is used. An RSS <cloud> counts when
 * its protocol is http-post and it names a usable endpoint.
 */
export function pushTargets(fetched: FetchedFeed): PushTargets {
  const header = parseLinkHeader(fetched.link, fetched.url);
  const headerHubs = (header.get("hub") ?? []).filter(isHttp);
  const hubs = headerHubs.length > 0 ? headerHubs : (fetched.push?.hubs ?? []).filter(isHttp);
  const self = header.get("self")?.[0] ?? fetched.push?.self ?? null;
  const topic = self && isHttp(self) ? self : fetched.url;
  return {
    websub: hubs.length > 0 ? { hub: hubs[0], topic } : null,
    cloud: cloudTarget(fetched),
  };
}

function cloudTarget(fetched: FetchedFeed): CloudTarget | null {
  const cloud = fetched.push?.cloud;
  if (!cloud || cloud.protocol.toLowerCase() !== "http-post") return null;
  const port = Number(cloud.port || "80");
  if (!cloud.domain || !Number.isInteger(port) || port < 1 || port > 65535 || /[\s/@?#]/.test(cloud.domain)) return null;
  try {
    const path = cloud.path.startsWith("/") ? cloud.path : `/${cloud.path}`;
    const endpoint = new URL(`http://${cloud.domain}:${port}${path}`).href;
    return { endpoint, feedUrl: fetched.url };
  } catch {
    return null;
  }
}
