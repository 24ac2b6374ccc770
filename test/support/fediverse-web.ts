/**
 * A local web of fediverse sites over https on loopback, for WebFinger and
 * add-by-handle tests. WebFinger is asked over https only (RFC 7033), so the
 * sites serve TLS with the loopback certificate (loopback-tls.ts), which a
 * process that looks accounts up must trust.
 *
 *   mastodon  WebFinger (profile-page link), the profile page, its RSS feed
 *   blog      WordPress-like: WebFinger names only the actor (no profile
 *             page); the actor's `url` is the author page, whose head lists
 *             the blog's feed, its comments feed and the author's feed
 */
import { respond, startFixtureServer, type FixtureServer } from "./fixture-server.js";
import { loopbackTls } from "./loopback-tls.js";

export { LOOPBACK_CERTIFICATE, loopbackTls, trustLoopbackCertificate } from "./loopback-tls.js";

export const rssFeed = (title: string, link: string) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>${title}</title><link>${link}</link><description>d</description>` +
  `<item><title>One</title><link>${link}1</link><guid>${link}1</guid><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item></channel></rss>`;

const html = (head: string, body = "<p>Hello</p>") =>
  `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

export interface FediverseWeb {
  mastodon: FixtureServer;
  blog: FixtureServer;
  /** `@ana@127.0.0.1:port`: a Mastodon-like account. */
  ana: string;
  anaProfile: string;
  anaFeed: string;
  /** `@bo@127.0.0.2:port`: a WordPress-like author, found through the actor. */
  bo: string;
  boAuthorPage: string;
  boBlogFeed: string;
  close(): Promise<void>;
}

/** A WebFinger answer: the descriptor for the accounts `accounts` names, 404 for others, 400 without `resource`. */
function webfinger(accounts: Record<string, object>): Parameters<FixtureServer["route"]>[1] {
  return (request, response) => {
    const resource = new URL(request.url ?? "/", "https://x").searchParams.get("resource");
    if (!resource) return void response.writeHead(400).end();
    const jrd = accounts[resource];
    if (!jrd) return void response.writeHead(404, { "content-type": "application/jrd+json" }).end("{}");
    response.writeHead(200, { "content-type": "application/jrd+json; charset=utf-8" }).end(JSON.stringify(jrd));
  };
}

export async function startFediverseWeb(): Promise<FediverseWeb> {
  const mastodon = await startFixtureServer(undefined, { tls: loopbackTls });
  const blog = await startFixtureServer(undefined, { address: "127.0.0.2", tls: loopbackTls });
  const mastodonHost = new URL(mastodon.url).host;
  const blogHost = new URL(blog.url).host;

  const anaProfile = `${mastodon.url}/@ana`;
  const anaFeed = `${mastodon.url}/@ana.rss`;
  mastodon.route(
    "/.well-known/webfinger",
    webfinger({
      [`acct:ana@${mastodonHost}`]: {
        subject: `acct:ana@${mastodonHost}`,
        aliases: [anaProfile, `${mastodon.url}/users/ana`],
        links: [
          { rel: "http://webfinger.net/rel/profile-page", type: "text/html", href: anaProfile },
          { rel: "self", type: "application/activity+json", href: `${mastodon.url}/users/ana` },
          {
            rel: "http://ostatus.org/schema/1.0/subscribe",
            template: `${mastodon.url}/authorize_interaction?uri={uri}`,
          },
        ],
      },
    }),
  );
  mastodon.route(
    "/@ana",
    respond.text(
      html(
        `<title>Ana (@ana@${mastodonHost})</title>` +
          `<link rel="alternate" type="application/rss+xml" href="${anaFeed}">` +
          `<link rel="alternate" type="application/activity+json" href="${mastodon.url}/users/ana">`,
      ),
      { headers: { "content-type": "text/html; charset=utf-8" } },
    ),
  );
  mastodon.route(
    "/@ana.rss",
    respond.text(rssFeed("Ana", `${anaProfile}/`), { headers: { "content-type": "application/rss+xml" } }),
  );

  const boAuthorPage = `${blog.url}/author/bo/`;
  const boBlogFeed = `${blog.url}/feed/`;
  blog.route(
    "/.well-known/webfinger",
    webfinger({
      [`acct:bo@${blogHost}`]: {
        subject: `acct:bo@${blogHost}`,
        links: [{ rel: "self", type: "application/activity+json", href: `${blog.url}/?author=1` }],
      },
    }),
  );
  blog.route(
    "/?author=1",
    respond.text(JSON.stringify({ type: "Person", preferredUsername: "bo", url: boAuthorPage }), {
      headers: { "content-type": "application/activity+json" },
    }),
  );
  blog.route(
    "/author/bo/",
    respond.text(
      html(
        `<title>Bo, author at Bo's blog</title>` +
          `<link rel="alternate" type="application/rss+xml" title="Bo's blog » Feed" href="/feed/">` +
          `<link rel="alternate" type="application/rss+xml" title="Bo's blog » Comments Feed" href="/comments/feed/">` +
          `<link rel="alternate" type="application/rss+xml" title="Bo's blog » Posts by Bo Feed" href="/author/bo/feed/">`,
      ),
      { headers: { "content-type": "text/html; charset=utf-8" } },
    ),
  );
  for (const feedPath of ["/feed/", "/comments/feed/", "/author/bo/feed/"]) {
    blog.route(
      feedPath,
      respond.text(rssFeed(`Bo's blog ${feedPath}`, `${blog.url}/`), {
        headers: { "content-type": "application/rss+xml" },
      }),
    );
  }

  return {
    mastodon,
    blog,
    ana: `@ana@${mastodonHost}`,
    anaProfile,
    anaFeed,
    bo: `@bo@${blogHost}`,
    boAuthorPage,
    boBlogFeed,
    close: async () => {
      await Promise.all([mastodon.close(), blog.close()]);
    },
  };
}
