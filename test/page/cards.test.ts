/**
 * The page's cards are made once per change of what they show: a card found
 * by its inputs (CardMemo) is the card blogCard makes of the same entry,
 * whichever field of the blog or of a post changed and whenever it is asked
 * for (relative dates move on); a rebuild after a one-blog change makes one
 * card anew, and the page and the fragment share theirs.
 */
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import express from "express";
import { blogCard, CardMemo, cardsInTurns, type RenderContext } from "../../lib/page/html.js";
import type { BlogrollData, PageBlog } from "../../lib/page/blogroll.js";
import { createPageResponder, createPageRouter } from "../../lib/page/routes.js";
import { packageRoot } from "../../lib/package-root.js";
import { createTranslator, loadCatalogs } from "../../lib/standalone/i18n.js";
import type { Blog, Item } from "../../lib/storage/types.js";
import { DAY, HOUR, MINUTE } from "../../lib/time/durations.js";
import { addBlog, addItems, item } from "../support/seed.js";
import { eventually } from "../support/eventually.js";
import { startTestServer, type TestServer } from "../support/server.js";

const catalogs = loadCatalogs(path.join(packageRoot, "locales"));
const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
const renderAt = (now: number, locale = "en"): RenderContext => ({
  locale,
  __: createTranslator(catalogs, locale),
  now,
});

/** Another value of the same kind, so that anything reading the field sees it change (a date for a missing date). */
function changed(value: unknown, field: string): unknown {
  if (value === null) return /At$|^published$/.test(field) ? new Date(NOW - MINUTE) : "changed";
  if (value instanceof Date) return new Date(value.getTime() + DAY + HOUR);
  if (Array.isArray(value)) return value.length > 0 ? [...value, value[0]] : ["met"];
  switch (typeof value) {
    case "string":
      return `${value}2`;
    case "number":
      return value + 1;
    case "boolean":
      return !value;
    case "object":
      return { ...value, changed: true };
    default:
      throw new Error(`no other value for ${typeof value}`);
  }
}

function post(n: number, published: Date | null): Item {
  return {
    id: `item-${n}`,
    blogId: "blog-1",
    uid: `uid-${n}`,
    url: `https://one.example/posts/${n}`,
    title: n === 2 ? null : `Post ${n}`,
    summary: `The summary of post ${n}`,
    content: "<p>Content</p>",
    published,
    author: "Ada",
    photo: null,
    categories: ["one"],
    fetchedAt: new Date(NOW - HOUR),
  };
}

describe("page cards made once per change (CardMemo)", () => {
  let server: TestServer;
  let entry: PageBlog;

  before(async () => {
    server = await startTestServer("sqlite");
    const stored = await addBlog(server.storage, {
      title: "One",
      siteUrl: "https://one.example/",
      photo: "https://one.example/icon.png",
      relationship: ["friend", "met"],
      note: "Reads well",
      fediverse: "@ada@one.example",
      fediverseUrl: "https://one.example/@ada",
    });
    // Every field of a stored blog, each set, so that changing it shows wherever it is read.
    const blog: Blog = { ...stored, iconUrl: "https://one.example/favicon.ico", lastPostAt: new Date(NOW - 3 * HOUR) };
    entry = {
      blog,
      posts: [post(1, new Date(NOW - 2 * HOUR)), post(2, new Date(NOW - 40 * DAY)), post(3, null)],
      lastPostAt: new Date(NOW - 2 * HOUR),
    };
  });
  after(() => server.close());

  it("a card found by its inputs is the card made anew, whichever field of the blog changed", () => {
    const render = renderAt(NOW);
    for (const field of Object.keys(entry.blog) as Array<keyof Blog>) {
      const memo = new CardMemo();
      memo.card(entry, render);
      const other: PageBlog = { ...entry, blog: { ...entry.blog, [field]: changed(entry.blog[field], field) } };
      assert.equal(memo.card(other, render), blogCard(other, render), `blog.${field} changed`);
    }
  });

  it("… whichever field of a post changed, for the first post and the others, and for a blog without posts", () => {
    const render = renderAt(NOW);
    for (const index of [0, 1, 2]) {
      for (const field of Object.keys(entry.posts[index]) as Array<keyof Item>) {
        const memo = new CardMemo();
        memo.card(entry, render);
        const posts = entry.posts.map((one, n) =>
          n === index ? { ...one, [field]: changed(one[field], field) } : one,
        );
        const other: PageBlog = { ...entry, posts };
        assert.equal(memo.card(other, render), blogCard(other, render), `posts[${index}].${field} changed`);
      }
    }
    const postless: PageBlog = { ...entry, posts: [], lastPostAt: new Date(NOW - 5 * DAY) };
    const memo = new CardMemo();
    memo.card(postless, render);
    for (const lastPostAt of [new Date(NOW - 6 * DAY), null]) {
      const other = { ...postless, lastPostAt };
      assert.equal(memo.card(other, render), blogCard(other, render), `lastPostAt ${String(lastPostAt)}`);
    }
  });

  it("… whenever it is asked for (relative dates move on), and in another language", () => {
    const memo = new CardMemo();
    const postless: PageBlog = { ...entry, posts: [], lastPostAt: new Date(NOW - 5 * DAY) };
    memo.card(entry, renderAt(NOW));
    memo.card(postless, renderAt(NOW));
    for (const later of [MINUTE, 31 * MINUTE, HOUR, 13 * HOUR, 2 * DAY, 8 * DAY, 29 * DAY, 400 * DAY]) {
      for (const one of [entry, postless]) {
        const render = renderAt(NOW + later);
        assert.equal(memo.card(one, render), blogCard(one, render), `${later} ms later`);
      }
    }
    const german = renderAt(NOW, "de");
    assert.equal(memo.card(entry, german), blogCard(entry, german));
  });

  it("a rebuild after one blog's change makes one card; the same data again makes none", async () => {
    const render = renderAt(NOW);
    const blogs: PageBlog[] = Array.from({ length: 120 }, (_, n) => ({
      ...entry,
      blog: { ...entry.blog, id: `blog-${n}`, title: `Blog ${n}` },
    }));
    const data: BlogrollData = { groups: [{ category: null, blogs }], count: blogs.length };
    const memo = new CardMemo();
    const first = await cardsInTurns(data, render, memo);
    assert.equal(memo.made, 120);
    const again = await cardsInTurns(data, render, memo);
    assert.equal(memo.made, 120, "nothing changed: every card found");
    const touched = blogs.map((one, n) =>
      n === 7 ? { ...one, posts: [post(9, new Date(NOW - MINUTE)), ...one.posts] } : { ...one },
    );
    const rebuilt = await cardsInTurns({ groups: [{ category: null, blogs: touched }], count: 120 }, render, memo);
    assert.equal(memo.made, 121, "one blog changed: one card made");
    assert.deepEqual([...again.values()], [...first.values()]);
    assert.deepEqual(
      [...rebuilt.values()],
      touched.map((one) => Buffer.from(blogCard(one, render))),
    );
  });
});

describe("page and fragment rebuilt after a change make only the changed blog's card", () => {
  let server: TestServer;
  let own: Server;
  let base: string;
  const memo = new CardMemo();
  const blogIds: string[] = [];

  before(async () => {
    server = await startTestServer("sqlite", { ownerName: "Ada" });
    for (let n = 0; n < 30; n++) {
      const blog = await addBlog(server.storage, { title: `Blog ${n}`, siteUrl: `https://b${n}.example/` });
      blogIds.push(blog.id);
      // Whole hours ago: the relative dates do not move on during the test.
      await addItems(server.storage, blog.id, [item(`b${n}`, new Date(Date.now() - (n + 2) * HOUR))]);
    }
    // The plugin's page routes with a memo of the test's own, to count what is made.
    const app = express();
    app.use(
      server.plugin.mountPath,
      createPageRouter(server.plugin.context, createPageResponder(server.plugin.context, memo)),
    );
    own = await new Promise((resolve) => {
      const listening = createServer(app).listen(0, "127.0.0.1", () => resolve(listening));
    });
    base = `http://127.0.0.1:${(own.address() as AddressInfo).port}${server.plugin.mountPath}`;
  });
  after(async () => {
    await new Promise((resolve) => own.close(resolve));
    await server.close();
  });

  it(
    "the page and the fragment share their cards; a new post on one blog makes that blog's card only, byte for byte what a fresh build makes",
    { timeout: 60_000 },
    async () => {
      const page = await fetch(`${base}/blogroll`);
      const embed = await fetch(`${base}/blogroll/embed`);
      assert.equal(page.status, 200);
      assert.equal(embed.status, 200);
      const etags = [page.headers.get("etag"), embed.headers.get("etag")];
      assert.equal(memo.made, 30, "one card per blog for both");

      await addItems(server.storage, blogIds[4], [
        item("fresh", new Date(Date.now() - 30 * MINUTE), { title: "Fresh" }),
      ]);
      const bodies = await eventually("both rebuilt with the new post", async () => {
        const answers = await Promise.all([fetch(`${base}/blogroll`), fetch(`${base}/blogroll/embed`)]);
        const texts = await Promise.all(answers.map((answer) => answer.text()));
        return answers.every((answer, n) => answer.headers.get("etag") !== etags[n]) && texts;
      });
      assert.equal(memo.made, 31, "the changed blog's card, once for both");
      // The plugin's own responder built nothing yet: its answers are made from scratch now.
      const fresh = await Promise.all(
        ["/blogroll", "/blogroll/embed"].map(async (one) =>
          (await server.get(`${server.plugin.mountPath}${one}`)).text(),
        ),
      );
      assert.match(fresh[0], /Fresh/);
      // The page's links name the address asked: this test's server, the plugin's there.
      const ownHost = new URL(base).host;
      const sameHost = (html: string) => html.replaceAll(ownHost, new URL(server.baseUrl).host);
      assert.deepEqual(bodies.map(sameHost), fresh);
    },
  );
});
