import type { FetchResult } from "../http/fetch.js";
import { feedUrlKey } from "../url/normalise.js";

/** A blog is added seconds after its feed was read; a read older than this is fetched again. */
const KEPT_MS = 2 * 60_000;
/** The owner adds blogs one at a time: a few reads waiting is plenty, and bounds the memory held. */
const MAX_KEPT = 8;

/**
 * Feeds read to be added (the add form's discovery reads the feed to know it
 * is one), kept until the new blog's first fetch takes them: adding a feed
 * then costs its site one request, not two. Each read is taken once, lives
 * two minutes at most, and at most eight wait (the oldest goes first).
 */
export class FirstReads {
  private readonly reads = new Map<string, { response: FetchResult; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  remember(feedUrl: string, response: FetchResult): void {
    const key = feedUrlKey(feedUrl);
    this.reads.delete(key);
    this.reads.set(key, { response, at: this.now() });
    while (this.reads.size > MAX_KEPT) this.reads.delete(this.reads.keys().next().value as string);
  }

  /** The read kept for this feed, if it is recent, removed as it is taken. */
  take(feedUrl: string): FetchResult | null {
    const key = feedUrlKey(feedUrl);
    const kept = this.reads.get(key);
    this.reads.delete(key);
    return kept && this.now() - kept.at <= KEPT_MS ? kept.response : null;
  }
}
