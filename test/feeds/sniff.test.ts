import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { findRootElement, sniffFormat } from "../../lib/feeds/sniff.js";

describe("sniffFormat", () => {
  const cases: Array<[body: string, format: string, root?: string]> = [
    ['<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x "y">]><!-- c --><rss>', "xml-feed", "rss"],
    [
      '<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd"><rss version="0.91">',
      "xml-feed",
      "rss",
    ],
    ['<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">', "xml-feed", "rdf:RDF"],
    ['\n  <a:feed xmlns:a="http://www.w3.org/2005/Atom">', "xml-feed", "a:feed"],
    ["<!doctype html><html>", "html", "html"],
    ['<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml">', "html", "html"],
    ['<meta charset="utf-8"><div class="h-entry">', "html", "meta"],
    ["<note/>", "other-xml", "note"],
    [' {"version": "https://jsonfeed.org/version/1.1"}', "json"],
    ["plain text", "unknown"],
    ["", "unknown"],
  ];
  for (const [body, format, root] of cases) {
    it(`${JSON.stringify(body.slice(0, 40))} → ${format}`, () => {
      assert.equal(sniffFormat(body), format);
      if (root) assert.equal(findRootElement(body)?.name, root);
    });
  }
});
