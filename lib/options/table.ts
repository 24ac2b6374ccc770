/**
 * Every plugin option, one descriptor each: its default, its kind and
 * bounds, its environment variable, whether it holds a secret, and its line
 * of documentation. The `BlogrollOptions` type, validation, the host's
 * plugin-page summary, the standalone environment variables and the options
 * table of docs/configuration.md all come from here (`npm run docs:options`
 * writes the docs). Adding an option means adding one descriptor.
 */
import type { OptionKind, ValueOfKind } from "./kinds.js";

/** Longest delay a Node timer honours (≈24.8 days): above it Node fires after 1 ms instead. */
export const MAX_TIMER_DELAY = 2 ** 31 - 1;

/** 100 years in days: keeps a retention cutoff a real date. */
const CENTURY_IN_DAYS = 36_500;

/** The sections of the options table in the docs, in order. */
export const OPTION_GROUPS = {
  routes: { title: "Routes and public responses" },
  schedule: { title: "Sync and schedule", intro: "See [Sync and schedule](sync.md) for how these work together." },
  fetching: { title: "Fetching" },
  live: { title: "Live updates", intro: "See [Live updates](live.md)." },
  storage: { title: "Storage" },
} as const;

interface DescriptorBase {
  group: keyof typeof OPTION_GROUPS;
  /** The docs' "Meaning" cell, one line of Markdown. */
  doc: string;
  /** A shorter line for the README's table of the most used options; only the options a newcomer meets first have one. */
  readme?: string;
  /** The docs' "Default" cell when the value alone does not say it (a null filled in at run time). */
  defaultDoc?: string;
  /** The standalone server's environment variable for it; it wins over the config file. */
  env?: string;
  /** The variable is read inside Indiekit too, as the default when the host's config sets none. */
  envInsideIndiekit?: true;
  /** "credentials": the value may carry a user name and password, never shown (plugin page, errors, docs). */
  secret?: "credentials";
}

/** Numbers are bounded: at least `min`, at most `max` (else any safe integer). */
interface NumericDescriptor extends DescriptorBase {
  kind: "integer" | "number";
  default: number;
  min: number;
  max?: number;
}

/** Any other kind; a null default makes the option optional (null: unset). */
type OtherDescriptor = {
  [K in Exclude<OptionKind, "integer" | "number">]: DescriptorBase & { kind: K; default: ValueOfKind<K> | null };
}[Exclude<OptionKind, "integer" | "number">];

export type OptionDescriptor = NumericDescriptor | OtherDescriptor;

/** The table, in the order the docs list it (group by group). */
export const OPTION_TABLE = {
  // Routes and public responses
  mountPath: {
    group: "routes",
    kind: "mount-path",
    default: "/blogrollapi",
    readme: "Where the routes are mounted.",
    doc: "Where the routes are mounted. Must start with `/`; a trailing `/` is dropped.",
  },
  cors: {
    group: "routes",
    kind: "string",
    default: "*",
    doc: '`Access-Control-Allow-Origin` of public responses; `""` turns CORS headers off (the [widget](widget.md) then only works on pages of the blogroll\'s own origin).',
  },
  cacheMaxAge: {
    group: "routes",
    kind: "number",
    default: 300,
    min: 0,
    // A year is the longest cache lifetime HTTP caches honour.
    max: 31_536_000,
    readme: "`Cache-Control` lifetime of public answers, in seconds.",
    doc: "`Cache-Control: public, max-age` of public GET responses, in seconds (at most a year).",
  },
  publicUrl: {
    group: "routes",
    kind: "http-url",
    default: null,
    env: "BLOGROLL_PUBLIC_URL",
    defaultDoc: "none (inside Indiekit the host's `application.url` serves for push)",
    readme: "The address at which the server is reachable from outside.",
    doc: "The address at which the server is reachable from outside. Standalone it also names the blogroll's owner (the OPML export's `ownerId`); inside Indiekit the owner is `publication.me`. WebSub hubs and rssCloud servers call back under it (the mount path added); see [Push](push.md). Public responses that link to this server (the page, the river feeds, the OPML export's head, their `Link` headers) name it; without it they name the host each request came to and say `Vary: Host`.",
  },
  ownerName: {
    group: "routes",
    kind: "text",
    default: null,
    defaultDoc: "the owner's host name",
    doc: 'The name the OPML export gives its owner (`ownerName`), e.g. `"Ada Lovelace"`; also the title of the [blogroll page](page.md) ("Ada Lovelace’s blogroll").',
  },
  locale: {
    group: "routes",
    kind: "language-tag",
    default: null,
    defaultDoc: "inside Indiekit its `publication.locale` (else `application.locale`); standalone English",
    doc: "The language of the [blogroll page](page.md): its few words, its dates and its natural order. One of the admin's 15 languages gets its words translated; any other tag Intl knows gets its dates and order, with English words.",
  },
  wellKnown: {
    group: "routes",
    kind: "boolean",
    default: true,
    doc: "Serve the blogroll at `/.well-known/recommendations.opml` and `/.well-known/recommendations.json` (see [the blogroll network](network.md)).",
  },
  riverTitle: {
    group: "routes",
    kind: "text",
    default: "Blogroll",
    doc: "Title of the [river feeds](rivers.md) (`<riverTitle> - <category>` for one category).",
  },
  riverDescription: {
    group: "routes",
    kind: "text",
    default: "The newest posts of the blogs in this blogroll",
    doc: "Their description (Atom `subtitle`).",
  },
  riverHomePageUrl: {
    group: "routes",
    kind: "http-url",
    default: null,
    defaultDoc: "the site's root",
    readme: "The page the river feeds name as their home.",
    doc: "The web page the river feeds name as their home (`alternate` link, `home_page_url`): set it to the page of your site that shows the widget.",
  },

  // Sync and schedule
  scheduler: {
    group: "schedule",
    kind: "boolean",
    default: true,
    doc: "Run the background scheduler. With `false` nothing is fetched in the background (not even new blogs); *Sync now* and a blog's *Refresh* still fetch.",
  },
  syncInterval: {
    group: "schedule",
    kind: "number",
    default: 60_000,
    min: 1000,
    max: MAX_TIMER_DELAY,
    doc: "Milliseconds between the scheduler's looks for blogs that are due; each blog has its own schedule. Keep it at most `minFetchInterval`.",
  },
  minFetchInterval: {
    group: "schedule",
    kind: "number",
    default: 900_000,
    min: 1000,
    max: MAX_TIMER_DELAY,
    doc: "Shortest time between two scheduled fetches of one blog, in milliseconds.",
  },
  maxFetchInterval: {
    group: "schedule",
    kind: "number",
    default: 86_400_000,
    min: 1000,
    max: MAX_TIMER_DELAY,
    readme: "Longest time between two fetches of one blog, in milliseconds.",
    doc: "Longest time between two scheduled fetches of one blog, in milliseconds, at least `minFetchInterval`; also the most a server's caching headers or `Retry-After` can make us wait, and the safety poll of a pushed blog.",
  },
  initialSyncDelay: {
    group: "schedule",
    kind: "number",
    default: 15_000,
    min: 0,
    max: MAX_TIMER_DELAY,
    doc: "Milliseconds from start to the first sync.",
  },
  dormantAfterDays: {
    group: "schedule",
    kind: "number",
    default: 180,
    min: 1,
    max: CENTURY_IN_DAYS,
    doc: "Days without a post after which the admin calls a blog dormant.",
  },
  maxItemsPerBlog: {
    group: "schedule",
    kind: "integer",
    default: 50,
    min: 1,
    doc: "Items kept per blog, newest first.",
  },
  maxItemAge: {
    group: "schedule",
    kind: "number",
    default: 7,
    min: 1,
    max: CENTURY_IN_DAYS,
    doc: "Days an item is kept.",
  },

  // Fetching
  fetchTimeout: {
    group: "fetching",
    kind: "number",
    default: 15_000,
    min: 100,
    max: MAX_TIMER_DELAY,
    doc: "Milliseconds one outbound request may take, body included.",
  },
  maxBodySize: {
    group: "fetching",
    kind: "number",
    default: 5 * 1024 * 1024,
    min: 1024,
    doc: "Largest response accepted (after decompression), in bytes.",
  },
  concurrency: {
    group: "fetching",
    kind: "integer",
    default: 16,
    min: 1,
    doc: "Feeds fetched in parallel (site-icon and blogroll lookups have a lane of their own, as wide; see [site icons](sync.md#site-icons)).",
  },
  perHostConcurrency: {
    group: "fetching",
    kind: "integer",
    default: 2,
    min: 1,
    doc: "Parallel requests to one host.",
  },
  allowPrivateNetworks: {
    group: "fetching",
    kind: "boolean",
    default: false,
    env: "BLOGROLL_ALLOW_PRIVATE_NETWORKS",
    readme: "Allow fetching loopback and private addresses.",
    doc: "Allow outbound requests to loopback and private addresses: feeds on your own network, a test setup. Off, such addresses are refused, and the refusal names this option (see [the private-network guard](sync.md#the-private-network-guard)).",
  },
  push: {
    group: "fetching",
    kind: "boolean",
    default: true,
    doc: "Subscribe to blogs' WebSub hubs and rssCloud servers. `false` turns both off (see [Push](push.md)).",
  },
  siteIcons: {
    group: "fetching",
    kind: "boolean",
    default: true,
    doc: "Look up the site icon of a blog whose feed has no image (its home page's head, then `/favicon.ico`; see [site icons](sync.md#site-icons)). `false`: no request is made for icons, and such blogs show none.",
  },
  minRecommenders: {
    group: "fetching",
    kind: "integer",
    default: 2,
    min: 1,
    doc: "[Suggestions](network.md#suggestions-the-blogs-your-blogs-recommend) list the feeds at least this many of your blogs recommend.",
  },

  // Live updates
  live: {
    group: "live",
    kind: "boolean",
    default: true,
    doc: "Serve live updates (Server-Sent Events) at `{mountPath}/api/events`.",
  },
  liveMaxConnections: {
    group: "live",
    kind: "integer",
    default: 1000,
    min: 1,
    doc: "Live connections held at once; more are answered `503` with `Retry-After`.",
  },
  liveMaxPerAddress: {
    group: "live",
    kind: "integer",
    default: 8,
    min: 1,
    doc: "Live connections held at once for one client address, an IPv6 client counting by its /64 network.",
  },
  liveKeepAlive: {
    group: "live",
    kind: "number",
    default: 25_000,
    min: 1000,
    max: MAX_TIMER_DELAY,
    doc: "Milliseconds between the comments that keep an idle live connection open through proxies.",
  },

  // Storage
  mongodbUrl: {
    group: "storage",
    kind: "mongodb-url",
    default: null,
    env: "MONGODB_URL",
    envInsideIndiekit: true,
    secret: "credentials",
    readme: "A MongoDB to use when the host has none (or `MONGODB_URL`).",
    doc: "A MongoDB to use when the host has no database.",
  },
  databasePath: {
    group: "storage",
    kind: "file-path",
    default: "data/blogroll.db",
    env: "BLOGROLL_DATABASE",
    readme: "The SQLite file, when there is no MongoDB.",
    doc: "The SQLite file used when there is no MongoDB (relative to the working directory; the folder is created).",
  },
} as const satisfies Record<string, OptionDescriptor>;

export type OptionName = keyof typeof OPTION_TABLE;

/** An option's value: its kind's, or null where the option may be unset (its default is null). */
type ValueOf<D extends OptionDescriptor> = ValueOfKind<D["kind"]> | (D["default"] extends null ? null : never);

/** The resolved options, typed from the table. */
export type BlogrollOptions = { -readonly [K in OptionName]: ValueOf<(typeof OPTION_TABLE)[K]> };

/** The descriptors as a list, in table order. */
export const OPTIONS: ReadonlyArray<[OptionName, OptionDescriptor]> = Object.entries(OPTION_TABLE) as Array<
  [OptionName, OptionDescriptor]
>;
