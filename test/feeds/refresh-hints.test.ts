import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { syndicationInterval, ttlMinutes } from "../../lib/feeds/refresh-hints.js";
import { parseFeed } from "../../lib/parser.js";
import { HOUR } from "../../lib/time/durations.js";

const url = "https://blog.example.com/feed.xml";

describe("a feed's refresh hints", () => {
  it("RSS 2.0 gives <ttl> and the Syndication module's period and frequency", async () => {
    const { feed } = await parseFeed(
      `<rss version="2.0" xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"><channel><title>T</title><ttl> 90 </ttl>
       <sy:updatePeriod>daily</sy:updatePeriod><sy:updateFrequency>4</sy:updateFrequency></channel></rss>`,
      { url },
    );
    assert.equal(feed.ttlMinutes, 90);
    assert.equal(feed.updateInterval, 6 * HOUR);
  });

  it("RSS 1.0 (RDF) puts sy: elements in its channel; Atom may carry them too", async () => {
    const rdf = await parseFeed(
      `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:sy="http://purl.org/rss/1.0/modules/syndication/">
       <channel rdf:about="https://blog.example.com/"><title>T</title><sy:updatePeriod>hourly</sy:updatePeriod></channel></rdf:RDF>`,
      { url },
    );
    assert.equal(rdf.feed.updateInterval, HOUR);
    const atom = await parseFeed(
      `<feed xmlns="http://www.w3.org/2005/Atom" xmlns:sy="http://purl.org/rss/1.0/modules/syndication/"><title>T</title>
       <sy:updatePeriod>weekly</sy:updatePeriod><sy:updateFrequency>7</sy:updateFrequency></feed>`,
      { url },
    );
    assert.equal(atom.feed.updateInterval, 24 * HOUR);
  });

  it("feeds without hints, or with nonsense, carry none", async () => {
    const { feed } = await parseFeed(`<rss version="2.0"><channel><title>T</title><ttl>soon</ttl></channel></rss>`, {
      url,
    });
    assert.equal(feed.ttlMinutes, undefined);
    assert.equal(feed.updateInterval, undefined);
    assert.equal(ttlMinutes("0"), null);
    assert.equal(ttlMinutes("-5"), null);
    assert.equal(syndicationInterval("fortnightly", "1"), null);
    assert.equal(syndicationInterval("Monthly", "0"), 30 * 24 * HOUR, "a zero frequency counts as once");
    assert.equal(syndicationInterval("yearly", "x"), 365 * 24 * HOUR);
  });
});
