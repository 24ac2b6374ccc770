import { EarliestTimer } from "./earliest-timer.js";
import type { ServerResponse } from "node:http";
import { once } from "node:events";
import type { Logger } from "../context.js";
import type { BlogrollOptions } from "../options.js";
import { onStorageWrite } from "../storage/change-count.js";
import { LIVE_LOG_KEPT_MS } from "../storage/live-log.js";
import type { LiveEvent, Storage } from "../storage/types.js";
import { Admission } from "./admission.js";
import { KEEP_ALIVE_FRAME, openingFrame } from "./frames.js";
import { liveFrame, resetFrame } from "./payload.js";
import { MINUTE } from "../time/durations.js";

/** How often the log is read while anyone listens: the delay for posts stored by another process. */
const POLL_MS = 1000;
/** A write in this process wakes the reader this soon (a fetch's writes come in a burst). */
const WAKE_MS = 20;
/** Events read at once. */
const BATCH = 200;
/**
 * Frames of the newest events kept for clients catching up (reconnecting, or
 * slow readers): they are sent from here, shared, rather than read again per
 * client. Older events are read from the log, CATCH_UP_BATCH at a time.
 */
const RECENT_FRAMES = 2000;
const RECENT_BYTES = 4 * 1024 * 1024;
const CATCH_UP_BATCH = 50;
/**
 * A seq missing below later ones (two MongoDB writers took 5 and 6, and 6 was
 * stored first) is waited for this long, holding back the later ones so
 * clients get events in order; after that it counts as never coming.
 */
const GAP_WAIT_MS = 2000;
/**
 * Bytes queued for one client at most. A client with this much unread falls
 * behind: nothing more is queued for it, and once it has read what it has, it
 * catches up from the log at its own pace.
 */
const MAX_UNREAD_BYTES = 64 * 1024;
/** A client behind that reads nothing for this many keep-alive intervals is dropped. */
const STALLED_INTERVALS = 3;
/** Events one client is caught up with at most (after reconnecting, or falling behind); beyond, it is told to reload. */
const MAX_REPLAY = 1000;
/** How often the log is trimmed while anyone listens. */
const TRIM_EVERY_MS = 5 * MINUTE;
/** Reconnection delays told to clients, spread so a restart does not bring them all back at once. */
const RETRY_MS = { min: 5000, spread: 5000 };

/** One client receiving events as they come. */
interface Listener {
  response: ServerResponse;
  /** The last seq it was sent (or that needs no sending). */
  lastSent: number;
  /** Since when it has been behind and read nothing (null: keeping up). */
  behindSince: number | null;
}

export interface LiveHubDeps {
  options: Pick<BlogrollOptions, "liveMaxConnections" | "liveMaxPerAddress" | "liveKeepAlive">;
  getStorage(): Promise<Storage>;
  log: Logger;
  /** How often the log is read (tests shorten it). */
  pollInterval?: number;
}

/**
 * Live events for this process's clients. While anyone listens it reads the
 * event log storage keeps (written by whichever process stored the post or
 * changed the blog) and writes each event, framed once, to every client. A
 * client that comes back with the last id it saw gets what it missed from the
 * log first. Per client it keeps one small record and at most
 * MAX_UNREAD_BYTES of unsent frames.
 */
export class LiveHub {
  readonly admission: Admission;
  private readonly listeners = new Set<Listener>();
  /** Clients served, including those still catching up. */
  private serving = 0;
  /** The last seq read from the log and sent to every listener. */
  private cursor = 0;
  private starting: Promise<void> | null = null;
  private running = false;
  private stopped = false;
  private readonly timer = new EarliestTimer(() => void this.poll());
  private keepAlive: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private polling = false;
  private pollAgain = false;
  private gapSince: number | null = null;
  private lastTrim = 0;
  private failing = false;
  /** The frames of the newest seqs read, oldest first (null: that seq sends nothing). */
  private readonly recent = new Map<number, Buffer | null>();
  private recentBytes = 0;

  constructor(private readonly deps: LiveHubDeps) {
    this.admission = new Admission({
      max: deps.options.liveMaxConnections,
      perAddress: deps.options.liveMaxPerAddress,
    });
  }

  /** Clients connected now. */
  get connections(): number {
    return this.serving;
  }

  /** Bytes queued for clients and not yet handed to the network, in all (at most 64 KiB each). */
  unreadBytes(): number {
    let bytes = 0;
    for (const { response } of this.listeners) bytes += response.writableLength;
    return bytes;
  }

  /** False once stopped: new clients are turned away. */
  get accepting(): boolean {
    return !this.stopped;
  }

  /**
   * Streams events to one admitted client whose response headers are set;
   * `lastEventId` is the last seq it saw (null: none, NaN: one never given).
   * Gives its admission back under `addressKey` when it goes.
   */
  async serve(response: ServerResponse, addressKey: string, lastEventId: number | null): Promise<void> {
    this.serving++;
    const listener: Listener = { response, lastSent: 0, behindSince: Date.now() };
    let closed = false;
    response.once("close", () => {
      closed = true;
      this.listeners.delete(listener);
      this.admission.release(addressKey);
      if (--this.serving === 0) this.idle();
    });
    try {
      if (this.stopped) throw new Error("live events are stopped");
      await this.start();
      if (closed) return;
      if (this.stopped) {
        response.end();
        return;
      }
      const retry = RETRY_MS.min + Math.floor(Math.random() * RETRY_MS.spread);
      this.listeners.add(listener);
      if (lastEventId === null) {
        listener.lastSent = this.cursor;
        response.write(openingFrame(retry, this.cursor));
        listener.behindSince = null;
      } else {
        response.write(openingFrame(retry, null));
        if (await this.kept(lastEventId)) {
          listener.lastSent = lastEventId;
          await this.catchUp(listener);
        } else {
          this.reset(listener);
        }
      }
    } catch (error) {
      if (!closed) this.deps.log.error("Serving live events failed", error);
      response.destroy();
    }
  }

  /** Ends every stream and stops reading the log (the plugin is stopping). */
  stop(): void {
    this.stopped = true;
    for (const { response } of this.listeners) response.end();
    this.listeners.clear();
    this.idle();
  }

  /** True when the log still holds every event after `lastEventId` (a seq this database gave). */
  private async kept(lastEventId: number): Promise<boolean> {
    const { newest, oldest } = await (await this.deps.getStorage()).events.bounds();
    return (
      Number.isInteger(lastEventId) && lastEventId <= newest && lastEventId >= (oldest === null ? newest : oldest - 1)
    );
  }

  /**
   * Sends a client that is behind (reconnecting, or too slow a reader) what
   * it missed, from the log, waiting for it to read as it goes; then it gets
   * events as they come again. Too much to catch up with: reload.
   */
  private async catchUp(listener: Listener): Promise<void> {
    const storage = await this.deps.getStorage();
    const gone = () => listener.response.destroyed || listener.response.writableEnded;
    let sent = 0;
    while (listener.lastSent < this.cursor && !gone()) {
      if (++sent > MAX_REPLAY) return this.reset(listener);
      const next = listener.lastSent + 1;
      if (this.recent.has(next)) {
        const frame = this.recent.get(next);
        if (frame) await this.writeWaiting(listener, frame);
        listener.lastSent = next;
        continue;
      }
      const target = this.cursor;
      const events = (await storage.events.after(listener.lastSent, CATCH_UP_BATCH)).filter(
        (event) => event.seq <= this.cursor,
      );
      if (events.length === 0) {
        // Read before newer events were stored: read again. Else the rest was trimmed away, or never came.
        if (this.cursor !== target) continue;
        break;
      }
      const now = new Date();
      for (const event of events) {
        if (gone()) return;
        const frame = liveFrame(event, now);
        if (frame) await this.writeWaiting(listener, frame);
        listener.lastSent = event.seq;
      }
      sent += events.length - 1;
    }
    // Nothing awaited from the last check on: no event can come between.
    listener.lastSent = Math.max(listener.lastSent, this.cursor);
    listener.behindSince = null;
  }

  private reset(listener: Listener): void {
    listener.lastSent = this.cursor;
    listener.behindSince = null;
    listener.response.write(resetFrame(this.cursor));
  }

  /** Reads the log from its newest event on, while anyone listens. */
  private start(): Promise<void> {
    if (this.running) return Promise.resolve();
    this.starting ??= (async () => {
      try {
        const storage = await this.deps.getStorage();
        this.cursor = (await storage.events.bounds()).newest;
        if (this.stopped) return;
        this.gapSince = null;
        this.running = true;
        this.unsubscribe = onStorageWrite(storage, () => this.pollSoon(WAKE_MS));
        this.keepAlive = setInterval(() => this.keepAliveTick(), this.deps.options.liveKeepAlive);
        this.keepAlive.unref();
        this.pollSoon(this.pollInterval);
        if (this.serving === 0) this.idle();
      } finally {
        this.starting = null;
      }
    })();
    return this.starting;
  }

  /** Nobody listens: stop reading (the next client starts again from the newest event). */
  private idle(): void {
    this.running = false;
    this.forgetRecent();
    this.timer.cancel();
    if (this.keepAlive) clearInterval(this.keepAlive);
    this.keepAlive = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  private get pollInterval(): number {
    return this.deps.pollInterval ?? POLL_MS;
  }

  private pollSoon(delay: number): void {
    if (!this.running) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.timer.within(delay);
  }

  private async poll(): Promise<void> {
    this.polling = true;
    try {
      const storage = await this.deps.getStorage();
      let more: boolean;
      do {
        this.pollAgain = false;
        const events = await storage.events.after(this.cursor, BATCH);
        more = this.deliver(events) && events.length === BATCH;
      } while ((more || this.pollAgain) && this.running);
      if (Date.now() - this.lastTrim > TRIM_EVERY_MS) {
        this.lastTrim = Date.now();
        await storage.events.trimBefore(new Date(Date.now() - LIVE_LOG_KEPT_MS));
      }
      this.failing = false;
    } catch (error) {
      // Logged once per run of failures: the next read tries again.
      if (!this.failing) this.deps.log.error("Reading live events failed", error);
      this.failing = true;
    } finally {
      this.polling = false;
      this.pollSoon(this.pollInterval);
    }
  }

  /** Sends events in seq order; false when it stopped at a seq still missing (see GAP_WAIT_MS). */
  private deliver(events: LiveEvent[]): boolean {
    const now = new Date();
    for (const event of events) {
      if (event.seq > this.cursor + 1) {
        this.gapSince ??= now.getTime();
        if (now.getTime() - this.gapSince < GAP_WAIT_MS) return false;
      }
      this.gapSince = null;
      if (event.seq - this.cursor > RECENT_FRAMES) this.forgetRecent();
      else for (let missing = this.cursor + 1; missing < event.seq; missing++) this.remember(missing, null);
      this.cursor = event.seq;
      const frame = liveFrame(event, now);
      this.remember(event.seq, frame);
      if (!frame) continue;
      for (const listener of this.listeners) {
        if (listener.behindSince !== null || listener.lastSent >= event.seq) continue;
        if (listener.response.writableLength + frame.length > MAX_UNREAD_BYTES) {
          listener.behindSince = Date.now();
          void drainedOrClosed(listener.response)
            .then(() => this.catchUp(listener))
            .catch((error: unknown) => this.drop(listener, error));
          continue;
        }
        listener.lastSent = event.seq;
        send(listener.response, frame);
      }
    }
    return true;
  }

  private forgetRecent(): void {
    this.recent.clear();
    this.recentBytes = 0;
  }

  private remember(seq: number, frame: Buffer | null): void {
    this.recent.set(seq, frame);
    this.recentBytes += frame?.length ?? 0;
    for (const [oldest, old] of this.recent) {
      if (this.recent.size <= RECENT_FRAMES && this.recentBytes <= RECENT_BYTES) break;
      this.recent.delete(oldest);
      this.recentBytes -= old?.length ?? 0;
    }
  }

  /** Comments to idle clients; a client behind that has read nothing for a while is dropped. */
  private keepAliveTick(): void {
    const stalled = Date.now() - STALLED_INTERVALS * this.deps.options.liveKeepAlive;
    for (const listener of this.listeners) {
      if (listener.behindSince === null) send(listener.response, KEEP_ALIVE_FRAME);
      else if (listener.behindSince < stalled) this.drop(listener);
    }
  }

  private drop(listener: Listener, error?: unknown): void {
    if (error) this.deps.log.error("Catching a live client up failed", error);
    this.listeners.delete(listener);
    listener.response.destroy();
  }

  /** Writes a frame while catching a client up: waits for it to read rather than queue more. */
  private async writeWaiting(listener: Listener, frame: Buffer): Promise<void> {
    const { response } = listener;
    if (response.writableLength + frame.length > MAX_UNREAD_BYTES) {
      await drainedOrClosed(response);
      listener.behindSince = Date.now();
    }
    if (response.destroyed || response.writableEnded) return;
    send(response, frame);
  }
}

function send(response: ServerResponse, frame: Buffer): void {
  response.write(frame);
  // Behind a compression middleware (Indiekit's) that compressed anyway: push the frame out now.
  (response as ServerResponse & { flush?: () => void }).flush?.();
}

/** Resolves when the client has read what was queued, or has gone. */
async function drainedOrClosed(response: ServerResponse): Promise<void> {
  const stop = new AbortController();
  const settled = (name: string) =>
    once(response, name, { signal: stop.signal }).then(
      () => undefined,
      () => undefined,
    );
  await Promise.race([settled("drain"), settled("close")]);
  stop.abort();
}
