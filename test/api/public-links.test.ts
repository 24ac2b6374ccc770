/**
 * Public responses that name this server's own addresses (the river feeds,
 * the OPML export and its well-known copy, the standalone home page's Link
 * header) take them from `publicUrl` when it is set; otherwise from the
 * request's Host, and then they say `Vary: Host`, so a shared cache never
 * hands one host's links to a client of another.
 */
import assert from "node:assert/strict";
import { get } from "node:http";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/server.js";

interface Answer {
  status: number;
  vary: string;
  link: string;
  body: string;
}

function fetchWithHost(url: string, host: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { Host: host, ...headers } }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          vary: String(response.headers.vary ?? ""),
          link: String(response.headers.link ?? ""),
          body,
        }),
      );
    }).on("error", reject);
  });
}

const varies = (answer: Answer) => answer.vary.split(",").some((name) => name.trim().toLowerCase() === "host");

function paths(server: TestServer): string[] {
  const mount = `${server.baseUrl}${server.plugin.mountPath}`;
  return [
    `${mount}/river.rss`,
    `${mount}/river.atom`,
    `${mount}/river.json`,
    `${mount}/api/opml`,
    `${server.baseUrl}/.well-known/recommendations.opml`,
    `${server.baseUrl}/`,
  ];
}

describe("public links", () => {
  describe("without publicUrl: from the Host header, with Vary: Host", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer("sqlite");
      await server.storage.blogs.upsertFromSource({
        feedUrl: "https://blog.example/feed.xml",
        title: "Blog",
        source: "manual",
      });
    });
    after(() => server.close());

    for (const index of [0, 1, 2, 3, 4, 5]) {
      it(`names the request's host and varies with it (${["river.rss", "river.atom", "river.json", "api/opml", "well-known OPML", "home page"][index]})`, async () => {
        const url = paths(server)[index];
        const answer = await fetchWithHost(url, "visitor.example");
        assert.equal(answer.status, 200);
        assert.ok(`${answer.body}${answer.link}`.includes("http://visitor.example/"), "the host asked for is named");
        assert.ok(varies(answer), `Vary: ${answer.vary}`);
      });
    }

    it("says Vary: Host on a 304 too", async () => {
      const url = `${server.baseUrl}${server.plugin.mountPath}/river.rss`;
      const first = await new Promise<string>((resolve, reject) => {
        get(url, { headers: { Host: "visitor.example" } }, (response) => {
          response.resume();
          resolve(String(response.headers.etag));
        }).on("error", reject);
      });
      const again = await fetchWithHost(url, "visitor.example", { "If-None-Match": first });
      assert.equal(again.status, 304);
      assert.ok(varies(again));
    });
  });

  describe("with publicUrl: always its address, whatever the Host header", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer("sqlite", { publicUrl: "https://blogroll.example/sub/" });
      await server.storage.blogs.upsertFromSource({
        feedUrl: "https://blog.example/feed.xml",
        title: "Blog",
        source: "manual",
      });
    });
    after(() => server.close());

    it("names publicUrl (its path kept) in every response, and an attacker's Host appears nowhere", async () => {
      for (const url of paths(server)) {
        const answer = await fetchWithHost(url, "attacker.example");
        assert.equal(answer.status, 200, url);
        const text = `${answer.body}${answer.link}`;
        assert.ok(text.includes(`https://blogroll.example/sub${server.plugin.mountPath}/`), url);
        assert.ok(!text.includes("attacker.example"), url);
      }
    });
  });
});
