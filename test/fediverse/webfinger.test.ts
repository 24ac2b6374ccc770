import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { formatHandle, looksLikeHandle, normaliseHandle, parseHandle } from "../../lib/fediverse/handle.js";
import { findAccount, MAX_JRD_BYTES, webfingerUrl } from "../../lib/fediverse/webfinger.js";
import { resolveOptions } from "../../lib/options.js";
import {
  startFediverseWeb,
  trustLoopbackCertificate,
  loopbackTls,
  type FediverseWeb,
} from "../support/fediverse-web.js";
import { respond, startFixtureServer } from "../support/fixture-server.js";

// The local web serves https with a self-signed loopback certificate.
trustLoopbackCertificate();

const options = resolveOptions({ allowPrivateNetworks: true, fetchTimeout: 5000 });

describe("fediverse handles", () => {
  it("reads @user@host, user@host and acct:user@host; the host lower-cased, IDNs in ASCII, default port dropped", () => {
    assert.deepEqual(parseHandle("@ana@social.example"), { user: "ana", host: "social.example" });
    assert.deepEqual(parseHandle("  Ana_1@Social.Example "), { user: "Ana_1", host: "social.example" });
    assert.deepEqual(parseHandle("acct:ana.b@social.example"), { user: "ana.b", host: "social.example" });
    assert.deepEqual(parseHandle("@ana@bücher.example"), { user: "ana", host: "xn--bcher-kva.example" });
    assert.deepEqual(parseHandle("@ana@social.example:443"), { user: "ana", host: "social.example" });
    assert.deepEqual(parseHandle("@ana@127.0.0.1:8443"), { user: "ana", host: "127.0.0.1:8443" });
    assert.equal(normaliseHandle("Ana@Social.Example"), "@Ana@social.example");
    assert.equal(formatHandle({ user: "ana", host: "social.example" }), "@ana@social.example");
  });

  it("refuses what is not a handle", () => {
    for (const text of [
      "",
      "ana",
      "@ana",
      "@ana@",
      "@@social.example",
      "@ana@social.example@x",
      "@a na@social.example",
      "@ana@social example",
      "@ana@social.example/path",
      "@ana@social.example?x=1",
      "@ana@social.example#top",
      "@ana@user:pw@social.example",
      "@an!a@social.example",
      "@...@social.example",
      "@ana@localhost",
      "https://social.example/@ana",
      `@${"a".repeat(65)}@social.example`,
      `@ana@${"a".repeat(250)}.example`,
      "@ana@[::1",
      "@ana@social.example:99999",
    ]) {
      assert.equal(parseHandle(text), null, text);
    }
  });

  it("tells a handle typed as an address from a web address", () => {
    for (const text of ["@ana@social.example", "ana@social.example", "acct:ana@social.example"])
      assert.equal(looksLikeHandle(text), true, text);
    for (const text of [
      "social.example",
      "https://ana@social.example/feed",
      "social.example/@ana",
      "https://social.example/@ana",
    ]) {
      assert.equal(looksLikeHandle(text), false, text);
    }
  });

  it("asks WebFinger over https at the handle's host, for the acct URI", () => {
    assert.equal(
      webfingerUrl({ user: "ana", host: "social.example" }),
      "https://social.example/.well-known/webfinger?resource=acct%3Aana%40social.example",
    );
  });
});

describe("WebFinger lookups on a local web (https over loopback)", () => {
  let web: FediverseWeb;
  before(async () => (web = await startFediverseWeb()));
  after(() => web.close());

  it("finds a Mastodon account's profile page from its profile-page link, asking for a JSON Resource Descriptor", async () => {
    assert.deepEqual(await findAccount(web.ana, options), { ok: true, handle: web.ana, profileUrl: web.anaProfile });
    const asked = web.mastodon.lastHeaders("/.well-known/webfinger");
    assert.match(String(asked?.accept), /^application\/jrd\+json/);
    assert.equal(
      web.mastodon.hits(
        `/.well-known/webfinger?resource=${encodeURIComponent(`acct:ana@${new URL(web.mastodon.url).host}`)}`,
      ),
      1,
    );
    assert.equal(web.mastodon.hits("/users/ana"), 0, "the actor is not fetched when the descriptor names the page");
  });

  it("reads the actor's url when the descriptor names no profile page (WordPress-like)", async () => {
    assert.deepEqual(await findAccount(web.bo, options), { ok: true, handle: web.bo, profileUrl: web.boAuthorPage });
    assert.match(String(web.blog.lastHeaders("/?author=1")?.accept), /^application\/activity\+json/);
  });

  it("says so when there is no such account", async () => {
    const host = new URL(web.mastodon.url).host;
    assert.deepEqual(await findAccount(`@nobody@${host}`, options), {
      ok: false,
      error: `No account @nobody@${host} on ${host}`,
      gone: true,
    });
  });

  it("refuses a bad handle without a request", async () => {
    const before = web.mastodon.hits("/.well-known/webfinger");
    assert.deepEqual(await findAccount("@ana", options), { ok: false, error: "Not a fediverse handle (@user@host)" });
    assert.equal(web.mastodon.hits("/.well-known/webfinger"), before);
  });

  it("refuses a host on a private network unless the owner allows them, before any request", async () => {
    const before = web.mastodon.hits("/.well-known/webfinger");
    const guarded = resolveOptions({ allowPrivateNetworks: false, fetchTimeout: 5000 });
    const result = await findAccount(web.ana, guarded);
    assert.equal(result.ok, false);
    assert.match((result as { error: string }).error, /private network/);
    assert.equal(web.mastodon.hits("/.well-known/webfinger"), before);
  });
});

describe("WebFinger: what a remote server may not make it do", () => {
  it("never asks over plain http: a host serving only http gives no account", async () => {
    const plain = await startFixtureServer();
    plain.route("/.well-known/webfinger", respond.text("{}", { headers: { "content-type": "application/jrd+json" } }));
    try {
      const result = await findAccount(`@ana@${new URL(plain.url).host}`, options);
      assert.equal(result.ok, false);
      assert.equal(plain.hits("/.well-known/webfinger"), 0, "no plain-http request reached the server");
    } finally {
      await plain.close();
    }
  });

  it("refuses a redirect of the lookup to http, an answer too large, one that is not JSON, and an account naming no page", async () => {
    const site = await startFixtureServer(undefined, { tls: loopbackTls });
    const host = new URL(site.url).host;
    const plain = await startFixtureServer();
    const jrd = (resource: string | null) => {
      const user = resource?.replace(/^acct:/, "").split("@")[0];
      if (user === "moved")
        return { redirect: `${plain.url}/.well-known/webfinger?resource=${encodeURIComponent(resource!)}` };
      if (user === "huge") return { body: JSON.stringify({ subject: resource, padding: "x".repeat(MAX_JRD_BYTES) }) };
      if (user === "html") return { body: "<!doctype html><p>hello</p>" };
      if (user === "pageless")
        return {
          body: JSON.stringify({
            subject: resource,
            links: [{ rel: "self", type: "application/activity+json", href: `${site.url}/actor` }],
          }),
        };
      return {
        body: JSON.stringify({
          subject: resource,
          links: [{ rel: "http://webfinger.net/rel/profile-page", href: "javascript:alert(1)" }],
        }),
      };
    };
    site.route("/.well-known/webfinger", (request, response) => {
      const answer = jrd(new URL(request.url ?? "/", site.url).searchParams.get("resource"));
      if (answer.redirect) return void response.writeHead(302, { location: answer.redirect }).end();
      response.writeHead(200, { "content-type": "application/jrd+json" }).end(answer.body);
    });
    // The actor of `pageless` needs a signature, as Mastodon's secure mode does.
    site.route("/actor", respond.text("", { status: 401 }));
    try {
      const error = async (user: string) => {
        const result = await findAccount(`@${user}@${host}`, options);
        assert.equal(result.ok, false, user);
        return (result as { error: string }).error;
      };
      assert.equal(await error("moved"), `${host} sent the account lookup to an address without https`);
      assert.match(await error("huge"), /too large/);
      assert.equal(await error("html"), `${host} gave no account description (WebFinger)`);
      assert.equal(await error("pageless"), `@pageless@${host} names no profile page`);
      assert.equal(await error("scripted"), `@scripted@${host} names no profile page`, "only http(s) pages are taken");
      assert.equal(site.hits("/actor"), 1);
      assert.equal(plain.hits("/.well-known/webfinger"), 0, "the redirect to http was not followed");
    } finally {
      await Promise.all([site.close(), plain.close()]);
    }
  });
});
