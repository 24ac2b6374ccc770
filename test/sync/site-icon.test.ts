import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { fetchUrl } from "../../lib/http/fetch.js";
import { findSiteIcon, pickIconFromHtml } from "../../lib/sync/site-icon.js";
import { startFeedServer, type FeedServer } from "./feed-server.js";

test("the largest apple-touch-icon wins, then the largest icon", () => {
  const html = `<!doctype html><html><head>
    <link rel="stylesheet" href="/style.css">
    <link rel="icon" href="/favicon-16.png" sizes="16x16">
    <link rel="SHORTCUT ICON" href="/favicon.ico">
    <link rel="apple-touch-icon" href="/touch-120.png" sizes="120x120">
    <link rel="apple-touch-icon" href="/touch-180.png" sizes="180x180">
  </head><body></body></html>`;
  assert.equal(pickIconFromHtml(html, "https://blog.example/"), "https://blog.example/touch-180.png");
  const iconsOnly = html.replace(/<link rel="apple-touch-icon"[^>]*>/g, "");
  assert.equal(pickIconFromHtml(iconsOnly, "https://blog.example/"), "https://blog.example/favicon-16.png");
});

test("icon links resolve against <base href> and entities are decoded", () => {
  const html = `<head><base href="https://cdn.example/assets/"><link rel="icon" href="icons/a.png?x=1&amp;y=2"></head>`;
  assert.equal(pickIconFromHtml(html, "https://blog.example/"), "https://cdn.example/assets/icons/a.png?x=1&y=2");
});

test("links in the body, non-http icons and pages without icons give nothing", () => {
  assert.equal(pickIconFromHtml(`<body><link rel="icon" href="/late.png"></body>`, "https://blog.example/"), null);
  assert.equal(pickIconFromHtml(`<head><link rel="icon" href="data:image/png;base64,AAAA"></head>`, "https://blog.example/"), null);
  assert.equal(pickIconFromHtml(`<head><title>No icon</title></head>`, "https://blog.example/"), null);
});

let server: FeedServer;
before(async () => {
  server = await startFeedServer();
});
after(() => server.close());

const fetchPage = (url: string, accept: string) =>
  fetchUrl(url, { timeout: 2000, maxBodySize: 100_000, allowPrivateNetworks: true, accept });

test("findSiteIcon reads the home page, then falls back to /favicon.ico only when it is an image", async () => {
  const [origin] = server.origins;
  server.route("/with-icon/", (_request, response) => {
    response.writeHead(200, { "content-type": "text/html" }).end(`<head><link rel="icon" href="me.png"></head>`);
  });
  assert.equal(await findSiteIcon(`${origin}/with-icon/`, fetchPage), `${origin}/with-icon/me.png`);

  server.route("/plain/", (_request, response) => void response.writeHead(200, { "content-type": "text/html" }).end("<p>hi</p>"));
  assert.equal(await findSiteIcon(`${origin}/plain/`, fetchPage), null, "no favicon.ico yet: 404");

  server.route("/favicon.ico", (_request, response) => void response.writeHead(200, { "content-type": "image/x-icon" }).end(Buffer.from([0, 0, 1, 0])));
  assert.equal(await findSiteIcon(`${origin}/plain/`, fetchPage), `${origin}/favicon.ico`);

  server.route("/favicon.ico", (_request, response) => void response.writeHead(200, { "content-type": "text/html" }).end("<p>soft 404</p>"));
  assert.equal(await findSiteIcon(`${origin}/plain/`, fetchPage), null);
});
