import assert from "node:assert/strict";
import { test } from "node:test";
import { bestIcon, pickIconFromHtml } from "../../lib/discovery/page-icon.js";

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

test("icon links resolve against the first <base href> and entities are decoded", () => {
  const html = `<head><link rel="icon" href="icons/a.png?x=1&amp;y=2"><base href="https://cdn.example/assets/"><base href="https://other.example/"></head>`;
  assert.equal(pickIconFromHtml(html, "https://blog.example/"), "https://cdn.example/assets/icons/a.png?x=1&y=2");
});

test("links in the body, non-http icons and pages without icons give nothing", () => {
  assert.equal(pickIconFromHtml(`<body><link rel="icon" href="/late.png"></body>`, "https://blog.example/"), null);
  assert.equal(
    pickIconFromHtml(`<head><link rel="icon" href="data:image/png;base64,AAAA"></head>`, "https://blog.example/"),
    null,
  );
  assert.equal(pickIconFromHtml(`<head><title>No icon</title></head>`, "https://blog.example/"), null);
});

test("the head ends where browsers end it: at </head> or at the first element that belongs in the body", () => {
  const base = "https://blog.example/";
  assert.equal(
    pickIconFromHtml(`<head><link rel="icon" href="/a.png"></head><link rel="apple-touch-icon" href="/b.png">`, base),
    `${base}a.png`,
  );
  assert.equal(
    pickIconFromHtml(`<html><head><div>x</div><link rel="icon" href="/after-div.png">`, base),
    null,
    "a div in the head starts the body",
  );
  // Without </head> (it is optional) the scan still ends at the first body element.
  assert.equal(
    pickIconFromHtml(
      `<html><head><meta charset="utf-8"><link rel="icon" href="/a.png"><p>text<link rel="apple-touch-icon" href="/b.png">`,
      base,
    ),
    `${base}a.png`,
  );
  assert.equal(
    pickIconFromHtml(
      `<head><noscript><link rel="icon" href="/ns.png"></noscript><script>"<body>"</script><title><div></title></head>`,
      base,
    ),
    `${base}ns.png`,
    "head elements, script and title text do not end it",
  );
});

test("hostile nesting ends the scan instead of growing the parser's stack", () => {
  const base = "https://blog.example/";
  const deepTemplates = `<head>${"<template>".repeat(50_000)}<link rel="icon" href="/deep.png">`;
  assert.equal(pickIconFromHtml(deepTemplates, base), null, "nothing past 16 open elements is read");
  const deepDivs = `<head><link rel="icon" href="/a.png">${"<div>".repeat(200_000)}`;
  assert.equal(pickIconFromHtml(deepDivs, base), `${base}a.png`);
});

test("bestIcon ranks links already resolved (discovery's)", () => {
  assert.equal(
    bestIcon([
      { href: "https://s.example/a.png", rel: ["icon"], sizes: "32x32" },
      { href: "https://s.example/b.png", rel: ["icon"], sizes: "64x64 16x16" },
      { href: "javascript:alert(1)", rel: ["apple-touch-icon"], sizes: null },
      { href: "https://s.example/feed.xml", rel: ["alternate"], sizes: null },
    ]),
    "https://s.example/b.png",
  );
  assert.equal(bestIcon([]), null);
});
