/**
 * A WebSub hub and an rssCloud server, written here for the tests and the
 * freshness benchmark, both over real HTTP on loopback. The hub follows the
 * W3C Recommendation as a hub would: it answers a subscription request with
 * 202, then verifies intent with a GET carrying a random challenge (or sends
 * `denied`), distributes content with X-Hub-Signature (HMAC of the raw
 * body under hub.secret) and stops at the end of each lease. It speaks http,
 * or https with the loopback certificate (loopback-tls.ts; subscribers send
 * secrets only to https hubs). The cloud server follows rssCloud's http-post
 * interface: pleaseNotify verified by a GET with a challenge (domain given),
 * answered with <notifyResult>, and notifications POSTed as `url=<feed>`.
 */
import { createHmac, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { Agent, fetch as fetchWith } from "undici";
import { loopbackTls } from "./loopback-tls.js";

async function readText(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function listen(
  handler: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  tls = false,
): Promise<{ server: Server; origin: string }> {
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    handler(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500).end(String(error));
    });
  };
  const server: Server = tls ? createTlsServer(loopbackTls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { server, origin: `${tls ? "https" : "http"}://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export interface HubSubscription {
  callback: string;
  topic: string;
  secret: string | null;
  leaseSeconds: number;
  /** The hub enforces the lease: no content is distributed to a subscription past this (Date.now() time). */
  expiresAt: number;
}

export interface HubEvent {
  mode: "subscribe" | "unsubscribe" | "denied";
  topic: string;
  callback: string;
  /** What the subscriber's verification answer did: confirmed (challenge echoed), refused (anything else). */
  outcome: "confirmed" | "refused" | "sent";
  status: number;
  /** When the verification was answered (Date.now()). */
  at: number;
}

export interface LocalHubOptions {
  /** Lease granted in the verification (default 3600 s). */
  leaseSeconds?: number;
  /** Answer subscription requests for these topics with a `denied` notice instead. */
  deny?: (topic: string) => boolean;
  /** Answer requests at the hub's root with this redirect (e.g. 307 or 308 to /moved). */
  redirect?: { status: 307 | 308; to: string };
  /** Serve the hub over https (the loopback certificate: its subscribers must trust it, see loopback-tls.ts). */
  tls?: boolean;
  /** The status a subscription request gets (202 by default); with another, nothing is verified. */
  answer?: (fields: Record<string, string>) => number;
}

export interface PublishOptions {
  contentType?: string;
  /** How to sign: with the subscription's secret (default), none, a wrong secret, or another algorithm. */
  signature?: "valid" | "none" | "wrong";
  algorithm?: "sha1" | "sha256" | "sha384" | "sha512";
}

export interface LocalHub {
  /** The hub URL feeds announce. */
  url: string;
  subscriptions: Map<string, HubSubscription>;
  events: HubEvent[];
  /** Requests received at the hub URL (form fields), in order. */
  requests: Array<Record<string, string>>;
  /** Distributes `body` to every subscriber of `topic`; the subscribers' answers' statuses. */
  publish(topic: string, body: string | Buffer, options?: PublishOptions): Promise<number[]>;
  /** Resolves once a verification has had the given outcome for the topic (each call waits for a new one). */
  verified(topic: string, mode?: HubEvent["mode"]): Promise<HubEvent>;
  close(): Promise<void>;
}

export async function startLocalHub(options: LocalHubOptions = {}): Promise<LocalHub> {
  const subscriptions = new Map<string, HubSubscription>();
  const events: HubEvent[] = [];
  const requests: Array<Record<string, string>> = [];
  const waiters: Array<{ topic: string; mode: HubEvent["mode"]; seen: number; resolve: (event: HubEvent) => void }> =
    [];
  const notify = () => {
    for (const waiter of [...waiters]) {
      const event = events
        .slice(waiter.seen)
        .find((candidate) => candidate.topic === waiter.topic && candidate.mode === waiter.mode);
      if (event) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  };

  const verify = async (fields: Record<string, string>) => {
    const mode = fields["hub.mode"] as "subscribe" | "unsubscribe";
    const topic = fields["hub.topic"];
    const callback = new URL(fields["hub.callback"]);
    const key = `${fields["hub.callback"]} ${topic}`;
    if (mode === "subscribe" && options.deny?.(topic)) {
      callback.searchParams.set("hub.mode", "denied");
      callback.searchParams.set("hub.topic", topic);
      callback.searchParams.set("hub.reason", "not on this hub");
      const response = await fetch(callback);
      await response.arrayBuffer();
      events.push({
        mode: "denied",
        topic,
        callback: fields["hub.callback"],
        outcome: "sent",
        status: response.status,
        at: Date.now(),
      });
      return notify();
    }
    const challenge = randomBytes(12).toString("hex");
    const leaseSeconds = options.leaseSeconds ?? 3600;
    callback.searchParams.set("hub.mode", mode);
    callback.searchParams.set("hub.topic", topic);
    callback.searchParams.set("hub.challenge", challenge);
    if (mode === "subscribe") callback.searchParams.set("hub.lease_seconds", String(leaseSeconds));
    const response = await fetch(callback);
    const text = await response.text();
    const confirmed = response.status >= 200 && response.status < 300 && text === challenge;
    if (confirmed && mode === "subscribe") {
      subscriptions.set(key, {
        callback: fields["hub.callback"],
        topic,
        secret: fields["hub.secret"] || null,
        leaseSeconds,
        expiresAt: Date.now() + leaseSeconds * 1000,
      });
    }
    if (confirmed && mode === "unsubscribe") subscriptions.delete(key);
    events.push({
      mode,
      topic,
      callback: fields["hub.callback"],
      outcome: confirmed ? "confirmed" : "refused",
      status: response.status,
      at: Date.now(),
    });
    notify();
  };

  const { server, origin } = await listen(async (request, response) => {
    const path = new URL(request.url ?? "/", "http://hub").pathname;
    if (request.method !== "POST") return void response.writeHead(405).end();
    if (options.redirect && path === "/") {
      await readText(request);
      return void response.writeHead(options.redirect.status, { location: options.redirect.to }).end();
    }
    const fields = Object.fromEntries(new URLSearchParams(await readText(request)));
    requests.push(fields);
    if (!["subscribe", "unsubscribe"].includes(fields["hub.mode"]) || !fields["hub.callback"] || !fields["hub.topic"]) {
      return void response.writeHead(400).end("bad request");
    }
    const status = options.answer?.(fields) ?? 202;
    if (status !== 202) return void response.writeHead(status).end("not now");
    response.writeHead(202).end("accepted");
    // Verification of intent comes after the 202, as an asynchronous hub does it.
    setImmediate(() => void verify(fields).catch(() => undefined));
  }, options.tls);

  return {
    url: `${origin}/`,
    subscriptions,
    events,
    requests,
    async publish(topic, body, publishOptions = {}) {
      const statuses: number[] = [];
      const bytes = typeof body === "string" ? Buffer.from(body) : body;
      for (const subscription of subscriptions.values()) {
        if (subscription.topic !== topic || subscription.expiresAt <= Date.now()) continue;
        const headers: Record<string, string> = {
          "content-type": publishOptions.contentType ?? "application/atom+xml",
          link: `<${origin}/>; rel="hub", <${topic}>; rel="self"`,
        };
        const algorithm = publishOptions.algorithm ?? "sha256";
        if (subscription.secret && publishOptions.signature !== "none") {
          const secret = publishOptions.signature === "wrong" ? `${subscription.secret}x` : subscription.secret;
          headers["x-hub-signature"] = `${algorithm}=${createHmac(algorithm, secret).update(bytes).digest("hex")}`;
        }
        // A hub retries a delivery that failed in transit (here: a kept-alive connection the subscriber's restart closed).
        const deliver = () => fetch(subscription.callback, { method: "POST", headers, body: new Uint8Array(bytes) });
        const response = await deliver().catch(deliver);
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      return statuses;
    },
    verified(topic, mode = "subscribe") {
      return new Promise((resolve) => {
        waiters.push({ topic, mode, seen: events.length, resolve });
      });
    },
    close: () => close(server),
  };
}

export interface CloudRegistration {
  /** Where notifications go: <protocol>://domain:port/path. */
  notifyUrl: string;
  feedUrl: string;
  fields: Record<string, string>;
}

export interface LocalCloud {
  /** The <cloud> element's attributes pointing here. */
  domain: string;
  port: number;
  path: string;
  registrations: CloudRegistration[];
  /** Requests to pleaseNotify, in order, with the answer sent. */
  requests: Array<{ fields: Record<string, string>; success: boolean }>;
  /** Sends `url=<feedUrl>` to every registration for feedUrl (or to all, with `name` given instead); their statuses. */
  notify(feedUrl: string, name?: string): Promise<number[]>;
  close(): Promise<void>;
}

/**
 * The cloud's notifications each go on a connection of their own, as a cloud
 * server calling many subscribers makes them: a kept-alive one may outlive a
 * subscriber's restart at the same address, and a POST sent on it fails.
 */
const freshConnections = new Agent({ pipelining: 0 });

export async function startLocalCloud(): Promise<LocalCloud> {
  const registrations: CloudRegistration[] = [];
  const requests: LocalCloud["requests"] = [];
  const { server, origin } = await listen(async (request, response) => {
    const path = new URL(request.url ?? "/", "http://cloud").pathname;
    if (request.method !== "POST" || path !== "/pleaseNotify") return void response.writeHead(404).end();
    const fields = Object.fromEntries(new URLSearchParams(await readText(request)));
    const scheme = fields.protocol === "https-post" ? "https" : "http";
    const notifyUrl = `${scheme}://${fields.domain}:${fields.port}${fields.path}`;
    const feeds = Object.keys(fields)
      .filter((key) => /^url\d+$/.test(key))
      .map((key) => fields[key]);
    let success = ["http-post", "https-post"].includes(fields.protocol) && feeds.length > 0;
    // With a domain, the subscriber proves it wants the notifications by echoing a challenge.
    for (const feedUrl of success ? feeds : []) {
      const challenge = randomBytes(10).toString("hex");
      const check = new URL(notifyUrl);
      check.searchParams.set("url", feedUrl);
      check.searchParams.set("challenge", challenge);
      const answer = await fetch(check).then(
        async (reply) => (reply.ok ? reply.text() : null),
        () => null,
      );
      if (answer !== challenge) success = false;
    }
    if (success) {
      for (const feedUrl of feeds) {
        const existing = registrations.findIndex((entry) => entry.notifyUrl === notifyUrl && entry.feedUrl === feedUrl);
        if (existing !== -1) registrations.splice(existing, 1);
        registrations.push({ notifyUrl, feedUrl, fields });
      }
    }
    requests.push({ fields, success });
    const message = success ? "Thanks for the registration." : "The subscription could not be verified.";
    response
      .writeHead(200, { "content-type": "text/xml" })
      .end(`<?xml version="1.0"?>\n<notifyResult success="${success}" msg="${message}"/>`);
  });
  const url = new URL(origin);
  return {
    domain: url.hostname,
    port: Number(url.port),
    path: "/pleaseNotify",
    registrations,
    requests,
    async notify(feedUrl, name) {
      const statuses: number[] = [];
      for (const registration of registrations) {
        if (name === undefined && registration.feedUrl !== feedUrl) continue;
        const response = await fetchWith(registration.notifyUrl, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ url: name ?? feedUrl }).toString(),
          dispatcher: freshConnections,
        });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      return statuses;
    },
    close: () => close(server),
  };
}
