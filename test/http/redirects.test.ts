import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { fetchUrl } from "../../lib/http/fetch.js";
import { respond, startFixtureServer, type FixtureServer } from "../support/fixture-server.js";
import { open, rejectsWith } from "./helpers.js";

describe("fetchUrl: redirects", () => {
  let site: FixtureServer;
  before(async () => {
    site = await startFixtureServer();
    site.route("/feed", respond.text("the feed"));
    site.route("/r301", respond.redirect("/r308", 301));
    site.route("/r308", respond.redirect("/feed", 308));
    site.route("/r302", respond.redirect("/feed", 302));
    site.route("/r303", respond.redirect("/feed", 303));
    site.route("/r307-then-301", respond.redirect("/r301", 307));
    site.route("/r301-then-302", respond.redirect("/r302", 301));
    site.route("/relative/deep/page", respond.redirect("../../feed", 301));
    site.route(
      "/absolute",
      (_request, response) => void response.writeHead(301, { location: `${site.url}/feed` }).end(),
    );
    site.route("/no-location", respond.text("moved, but where?", { status: 301 }));
    site.route("/loop-a", respond.redirect("/loop-b"));
    site.route("/loop-b", respond.redirect("/loop-a"));
    site.route("/self", respond.redirect("/self", 301));
    for (let hop = 0; hop < 6; hop++) site.route(`/chain${hop}`, respond.redirect(`/chain${hop + 1}`, 301));
    site.route("/chain6", respond.text("end of chain"));
    site.route("/to-file", respond.redirect("file:///etc/passwd"));
    site.route("/to-gopher", respond.redirect("gopher://example.org/"));
    site.route("/to-data", respond.redirect("data:text/html,<script>alert(1)</script>"));
    site.route("/to-invalid", respond.redirect("http://exa mple.org:99999/"));
  });
  after(() => site.close());

  it("reports a permanent redirect when every hop is 301 or 308", async () => {
    const result = await fetchUrl(`${site.url}/r301`, open);
    assert.equal(result.status, 200);
    assert.equal(Buffer.from(result.body).toString(), "the feed");
    assert.equal(result.url, `${site.url}/feed`);
    assert.equal(result.permanentRedirect, `${site.url}/feed`);
    assert.deepEqual(result.redirects, [
      { from: `${site.url}/r301`, to: `${site.url}/r308`, status: 301 },
      { from: `${site.url}/r308`, to: `${site.url}/feed`, status: 308 },
    ]);
  });

  it("does not report a permanent redirect when any hop is 302, 303 or 307", async () => {
    for (const path of ["/r302", "/r303", "/r307-then-301", "/r301-then-302"]) {
      const result = await fetchUrl(`${site.url}${path}`, open);
      assert.equal(result.url, `${site.url}/feed`, path);
      assert.equal(result.permanentRedirect, null, path);
    }
  });

  it("resolves relative and absolute Location against the current URL", async () => {
    assert.equal((await fetchUrl(`${site.url}/relative/deep/page`, open)).url, `${site.url}/feed`);
    assert.equal((await fetchUrl(`${site.url}/absolute`, open)).permanentRedirect, `${site.url}/feed`);
  });

  it("returns a redirect status without Location as it is", async () => {
    const result = await fetchUrl(`${site.url}/no-location`, open);
    assert.equal(result.status, 301);
    assert.deepEqual(result.redirects, []);
  });

  it("follows 5 hops and refuses a 6th, and refuses loops", async () => {
    const five = await fetchUrl(`${site.url}/chain1`, open);
    assert.equal(Buffer.from(five.body).toString(), "end of chain");
    assert.equal(five.redirects.length, 5);
    await rejectsWith(fetchUrl(`${site.url}/chain0`, open), "too_many_redirects");
    await rejectsWith(fetchUrl(`${site.url}/chain4`, { ...open, maxRedirects: 1 }), "too_many_redirects");
    site.reset();
    await rejectsWith(fetchUrl(`${site.url}/loop-a`, open), "too_many_redirects");
    assert.equal(site.hits("/loop-a") + site.hits("/loop-b"), 2, "the loop is seen on its first repeat");
    await rejectsWith(fetchUrl(`${site.url}/self`, open), "too_many_redirects");
  });

  it("refuses redirects to other schemes and to invalid addresses", async () => {
    for (const path of ["/to-file", "/to-gopher", "/to-data", "/to-invalid"])
      await rejectsWith(fetchUrl(`${site.url}${path}`, open), "bad_url");
  });
});

describe("fetchUrl: hostGate", () => {
  let first: FixtureServer;
  let second: FixtureServer;
  before(async () => {
    first = await startFixtureServer();
    second = await startFixtureServer(undefined, { address: "127.0.0.2" });
    second.route("/feed", respond.text("the feed"));
    second.route("/trickle", respond.trickle("<", 100));
    first.route(
      "/elsewhere",
      (_request, response) => void response.writeHead(301, { location: `${second.url}/feed` }).end(),
    );
  });
  after(async () => {
    await first.close();
    await second.close();
  });

  it("runs every hop through the gate of its own host, one at a time", async () => {
    const entered: string[] = [];
    let inside = 0;
    const gate = async <T>(host: string, task: () => Promise<T>): Promise<T> => {
      entered.push(host);
      inside++;
      assert.equal(inside, 1, "a hop lets go of its host before the next one starts");
      try {
        return await task();
      } finally {
        inside--;
      }
    };
    const result = await fetchUrl(`${first.url}/elsewhere`, { ...open, hostGate: gate });
    assert.equal(Buffer.from(result.body).toString(), "the feed");
    assert.deepEqual(entered, ["127.0.0.1", "127.0.0.2"]);
  });

  it("does not count time spent waiting for a slot against the deadline, but counts every hop's own time", async () => {
    const slow = <T>(_host: string, task: () => Promise<T>) =>
      new Promise((resolve) => setTimeout(resolve, 400)).then(task);
    const result = await fetchUrl(`${first.url}/elsewhere`, { ...open, timeout: 300, hostGate: slow });
    assert.equal(result.status, 200, "two 400 ms waits did not use up a 300 ms deadline");
    await rejectsWith(fetchUrl(`${second.url}/trickle`, { ...open, timeout: 300, hostGate: slow }), "timeout");
  });
});
