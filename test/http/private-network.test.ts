import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fetchUrl } from "../../lib/http/fetch.js";
import {
  createGuardedAgent,
  guardedLookup,
  type ResolvedAddress,
  type Resolver,
} from "../../lib/http/guarded-agent.js";
import { respond, startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { addBlog } from "../support/seed.js";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";
import { closed, open, rejectsWith } from "./helpers.js";

/** A resolver answering from a table, so no test ever asks real DNS about a name. */
function table(entries: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const addresses = entries[hostname];
    if (!addresses) throw Object.assign(new Error(`no such test name ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address): ResolvedAddress => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}

/** Runs the guarded lookup the way node:net does and returns what it answered. */
function lookUp(resolve: Resolver, hostname: string, allowPrivateNetworks = false): Promise<ResolvedAddress[]> {
  const lookup = guardedLookup({ allowPrivateNetworks, resolve });
  return new Promise((done, fail) => {
    lookup(hostname, { all: true }, (error: NodeJS.ErrnoException | null, addresses: unknown) =>
      error ? fail(error) : done(addresses as ResolvedAddress[]),
    );
  });
}

describe("private network guard", () => {
  // Stands in for every private target: whatever reaches it shows up in its connection count.
  let target: FixtureServer;
  before(async () => {
    target = await startFixtureServer(respond.text("private data"));
  });
  after(() => target.close());

  it("refuses private and reserved IP literals in every spelling, without connecting", async () => {
    target.reset();
    const hosts = [
      "127.0.0.1",
      "127.1",
      "2130706433",
      "0x7f000001",
      "0177.0.0.1",
      "127.0.0.2",
      "0.0.0.0",
      "0",
      "[::]",
      "[::1]",
      "[::ffff:7f00:1]",
      "[::ffff:127.0.0.1]",
      "[64:ff9b::7f00:1]",
      "[2002:7f00:1::]",
      "[2001::1]",
      "169.254.169.254",
      "100.64.0.1",
      "10.0.0.1",
      "172.16.0.1",
      "192.168.0.1",
      "[fd00::1]",
      "[fe80::1]",
      "224.0.0.1",
      "255.255.255.255",
    ];
    for (const host of hosts) {
      const error = await rejectsWith(fetchUrl(`http://${host}:${target.port}/`, closed), "blocked_address");
      assert.match(error.message, /^address not allowed/, host);
    }
    assert.equal(target.connections.total, 0, "no connection was opened");
    // The same URLs do connect once private networks are allowed: the refusal above came from the policy.
    assert.equal((await fetchUrl(`http://127.1:${target.port}/`, open)).status, 200);
    assert.equal(target.connections.total, 1);
  });

  it("refuses localhost through the connect-time lookup, naming the host but not its address", async () => {
    target.reset();
    const error = await rejectsWith(
      fetchUrl(`http://localhost:${target.port}/`, closed),
      "blocked_address",
      /127\.0\.0\.1|::1/,
    );
    assert.match(error.message, /address not allowed: localhost\b/);
    assert.equal(target.connections.total, 0);
  });

  it("refuses a name that resolves to a private address, never saying which address", async () => {
    target.reset();
    // End to end on loopback only: the name's private answer must stop the request before it connects.
    const agent = createGuardedAgent({
      allowPrivateNetworks: false,
      resolve: table({ "intranet.example": ["127.0.0.1"] }),
    });
    try {
      const error = await rejectsWith(
        fetchUrl(`http://intranet.example:${target.port}/`, { ...closed, dispatcher: agent }),
        "blocked_address",
        /127\.0\.0\.1/,
      );
      assert.match(error.message, /intranet\.example/);
      assert.equal(target.connections.total, 0);
    } finally {
      await agent.close();
    }
  });

  it("the lookup refuses names with ANY blocked address, and passes public ones through", async () => {
    // Checked on the lookup itself so a broken guard could never send a packet to these addresses.
    const resolve = table({
      "ten.example": ["10.0.0.1"],
      "metadata.example": ["169.254.169.254"],
      "mixed.example": ["93.184.216.34", "fd00::1"],
      "mapped.example": ["::ffff:10.0.0.1"],
      "public.example": ["93.184.216.34", "2606:4700::1"],
    });
    for (const name of ["ten.example", "metadata.example", "mixed.example", "mapped.example"]) {
      await assert.rejects(lookUp(resolve, name), (error: Error) => {
        assert.equal(
          error.message,
          `address not allowed: ${name} is on a private or reserved network (the allowPrivateNetworks option allows it)`,
        );
        return true;
      });
    }
    assert.deepEqual(await lookUp(resolve, "public.example"), [
      { address: "93.184.216.34", family: 4 },
      { address: "2606:4700::1", family: 6 },
    ]);
    assert.deepEqual(
      await lookUp(resolve, "ten.example", true),
      [{ address: "10.0.0.1", family: 4 }],
      "allowPrivateNetworks lifts the rule",
    );
    await assert.rejects(lookUp(resolve, "unknown.example"), { code: "ENOTFOUND" });
  });

  it("reports a name that does not resolve as a network error naming the host", async () => {
    const agent = createGuardedAgent({ allowPrivateNetworks: false, resolve: table({}) });
    try {
      const error = await rejectsWith(
        fetchUrl("http://nowhere.example/feed", { ...closed, dispatcher: agent }),
        "network",
      );
      assert.equal(error.message, "cannot resolve nowhere.example");
    } finally {
      await agent.close();
    }
  });

  describe("with a stand-in public host (127.0.0.2 counts as public here)", () => {
    let publicSite: FixtureServer;
    const isBlocked = (address: string) => address !== "127.0.0.2";
    before(async () => {
      publicSite = await startFixtureServer(undefined, { address: "127.0.0.2" });
      publicSite.route("/feed", respond.text("public feed", { headers: { connection: "close" } }));
      publicSite.route("/to-literal", respond.redirect(`http://127.0.0.1:${target.port}/`));
      publicSite.route("/to-private-name", respond.redirect(`http://private.example:${target.port}/`));
    });
    after(() => publicSite.close());

    it("refuses a redirect from a public host to a private one, on the hop", async () => {
      target.reset();
      const agent = createGuardedAgent({
        allowPrivateNetworks: false,
        isBlocked,
        resolve: table({ "public.example": ["127.0.0.2"], "private.example": ["127.0.0.1"] }),
      });
      try {
        const port = publicSite.port;
        assert.equal(
          Buffer.from(
            (await fetchUrl(`http://public.example:${port}/feed`, { ...closed, dispatcher: agent })).body,
          ).toString(),
          "public feed",
        );
        await rejectsWith(
          fetchUrl(`http://public.example:${port}/to-literal`, { ...closed, dispatcher: agent }),
          "blocked_address",
        );
        const error = await rejectsWith(
          fetchUrl(`http://public.example:${port}/to-private-name`, { ...closed, dispatcher: agent }),
          "blocked_address",
          /127\.0\.0/,
        );
        assert.match(error.message, /private\.example/);
        assert.equal(publicSite.hits("/to-private-name"), 1);
        assert.equal(target.connections.total, 0);
      } finally {
        await agent.close();
      }
    });

    it("checks the address at every connect, so a name rebinding to a private address is refused (DNS rebinding)", async () => {
      let answers = 0;
      const agent = createGuardedAgent({
        allowPrivateNetworks: false,
        isBlocked,
        // First answer public, every later one private: what a rebinding attacker's DNS does.
        resolve: async () => [{ address: answers++ === 0 ? "127.0.0.2" : "127.0.0.1", family: 4 }],
      });
      try {
        const url = `http://rebind.example:${publicSite.port}/feed`;
        assert.equal((await fetchUrl(url, { ...closed, dispatcher: agent })).status, 200);
        // The server closed that connection, so the next request connects, and looks the name up, again.
        await rejectsWith(fetchUrl(url, { ...closed, dispatcher: agent }), "blocked_address", /127\.0\.0\.1/);
        assert.equal(answers, 2);
      } finally {
        await agent.close();
      }
    });
  });
});

describe("private network guard out of the box (allowPrivateNetworks not set)", () => {
  // Every other test sets the option; these start the plugin without it, as a new owner does.
  let target: FixtureServer;
  let server: TestServer;
  before(async () => {
    target = await startFixtureServer();
    target.route(
      "/",
      respond.text('<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head></html>', {
        headers: { "content-type": "text/html" },
      }),
    );
    target.route(
      "/feed.xml",
      respond.text('<rss version="2.0"><channel><title>Private</title></channel></rss>', {
        headers: { "content-type": "application/rss+xml" },
      }),
    );
    server = await startTestServer("sqlite", { allowPrivateNetworks: undefined });
  });
  after(async () => {
    await server.close();
    await target.close();
  });

  it("discovery refuses a loopback address without connecting", async () => {
    target.reset();
    const response = await server.get(`${server.api}/discover?url=${encodeURIComponent(`${target.url}/`)}`, {
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.equal(body.success, false, JSON.stringify(body));
    // The refusal names the option that allows it, for an owner whose feeds do live on their network.
    assert.equal(
      body.error,
      "This address is on a private network and may not be fetched (the allowPrivateNetworks option allows it)",
    );
    assert.equal(target.connections.total, 0);
  });

  it("a sync refuses a blog on a loopback address without connecting, and says why", async () => {
    target.reset();
    const blog = await addBlog(server.storage, { feedUrl: `${target.url}/feed.xml` });
    await server.plugin.context.scheduler.syncNow();
    const after = await server.storage.blogs.get(blog.id);
    assert.equal(after?.status, "error");
    assert.equal(
      after?.lastError,
      "Address not allowed: 127.0.0.1 is on a private or reserved network (the allowPrivateNetworks option allows it)",
    );
    assert.equal(target.connections.total, 0);
  });
});
