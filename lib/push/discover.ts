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
 * The parameters of one link-value (`; rel="a b"; type=x`) up to the comma
 * that ends it, outside quotes: its `rel` (lower case) and where the next
 * link-value starts.
 */
function linkParameters(header: string, from: number): { rel: string; next: number } {
  let rel = "";
  let index = from;
  while (index < header.length && header[index] !== ",") {
    if (header[index] !== ";") {
      index++;
      continue;
    }
    // One parameter: name [= value], the value a token or a quoted string.
    let end = index + 1;
    while (end < header.length && !";,=".includes(header[end])) end++;
    const name = header
      .slice(index + 1, end)
      .trim()
      .toLowerCase();
    let value = "";
    if (header[end] === "=") {
      end++;
      while (header[end] === " " || header[end] === "\t") end++;
      if (header[end] === '"') {
        end++;
        while (end < header.length && header[end] !== '"') {
          if (header[end] === "\\") end++;
          value += header[end] ?? "";
          end++;
        }
        end++;
      } else {
        const start = end;
        while (end < header.length && !";,".includes(header[end])) end++;
        value = header.slice(start, end).trim();
      }
    }
    if (name === "rel" && !rel) rel = value.toLowerCase();
    index = end;
  }
  return { rel, next: index + 1 };
}

/**
 * `rel` → URLs of an HTTP Link header (RFC 8288), resolved against `base`.
 * Only what WebSub needs: `<uri>; rel="a b"` link-values separated by
 * commas; other parameters are skipped and a link-value that does not parse
 * is left out. One pass over the header: a hostile one costs time in
 * proportion to its length, never more.
 */
export function parseLinkHeader(header: string | null, base: string): Map<string, string[]> {
  const rels = new Map<string, Set<string>>();
  if (!header) return new Map();
  let index = 0;
  while (index < header.length) {
    const open = header.indexOf("<", index);
    if (open === -1) break;
    const close = header.indexOf(">", open + 1);
    if (close === -1) break;
    const { rel, next } = linkParameters(header, close + 1);
    index = next;
    let target: string;
    try {
      target = new URL(header.slice(open + 1, close).trim(), base).href;
    } catch {
      continue;
    }
    for (const name of rel.split(/\s+/).filter(Boolean)) {
      const targets = rels.get(name) ?? new Set<string>();
      targets.add(target);
      rels.set(name, targets);
    }
  }
  return new Map([...rels].map(([name, targets]) => [name, [...targets]]));
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
  if (!cloud.domain || !Number.isInteger(port) || port < 1 || port > 65535 || /[\s/@?#]/.test(cloud.domain))
    return null;
  try {
    const path = cloud.path.startsWith("/") ? cloud.path : `/${cloud.path}`;
    const endpoint = new URL(`http://${cloud.domain}:${port}${path}`).href;
    return { endpoint, feedUrl: fetched.url };
  } catch {
    return null;
  }
}
