/**
 * The blogroll widget: two custom elements for any web page, fed by the
 * blogroll's public API. They write the same h-card / h-entry markup as the
 * server's fragment ({mountPath}/blogroll/embed), so a saved page keeps its
 * microformats, and a fragment the page placed inside an element stays until
 * the element's own render is ready.
 *
 *   <script type="module" src="https://example.org/blogrollapi/widget.js"></script>
 *   <blogroll-blogs></blogroll-blogs>
 *   <blogroll-items limit="10"></blogroll-items>
 *
 * Both render into the light DOM (the page's CSS applies, the content is in
 * the page), with `blogroll__*` class names and `--blogroll-*` custom
 * properties; default styles are off with the `unstyled` attribute. Text from
 * feeds is only ever set as text, links are http(s) only. With the `live`
 * attribute they follow the server's live events ({mountPath}/api/events),
 * over one EventSource per page. Attributes are described in docs/widget.md.
 * No dependencies, no build step.
 */

/** The API lives beside this module ({mountPath}/widget.js → {mountPath}/api/…) unless `src` says otherwise. */
const MODULE_BASE = new URL(".", import.meta.url).href;

/** The few strings shown, in the admin's languages; the page's `lang` chooses (its full tag, else its language). */
const STRINGS = {
  en: {
    more: "More posts",
    loading: "Loading…",
    failed: "The blogroll could not be loaded right now.",
    noPosts: "No posts yet.",
    noBlogs: "No blogs yet.",
    other: "Other blogs",
    latest: "Latest posts",
    lastPost: "Last post",
    feed: "feed",
    newPost: "New post on {blog}",
  },
  de: {
    more: "Weitere Beiträge",
    loading: "Wird geladen …",
    failed: "Die Blogroll konnte gerade nicht geladen werden.",
    noPosts: "Noch keine Beiträge.",
    noBlogs: "Noch keine Blogs.",
    other: "Weitere Blogs",
    latest: "Neueste Beiträge",
    lastPost: "Letzter Beitrag",
    feed: "Feed",
    newPost: "Neuer Beitrag auf {blog}",
  },
  fr: {
    more: "Plus d’articles",
    loading: "Chargement…",
    failed: "La blogroll n’a pas pu être chargée pour le moment.",
    noPosts: "Aucun article pour l’instant.",
    noBlogs: "Aucun blog pour l’instant.",
    other: "Autres blogs",
    latest: "Derniers articles",
    lastPost: "Dernier article",
    feed: "flux",
    newPost: "Nouvel article sur {blog}",
  },
  es: {
    more: "Más entradas",
    loading: "Cargando…",
    failed: "No se ha podido cargar el blogroll en este momento.",
    noPosts: "Todavía no hay entradas.",
    noBlogs: "Todavía no hay blogs.",
    other: "Otros blogs",
    latest: "Últimas entradas",
    lastPost: "Última entrada",
    feed: "feed",
    newPost: "Nueva entrada en {blog}",
  },
  nl: {
    more: "Meer berichten",
    loading: "Laden…",
    failed: "De blogroll kon nu niet worden geladen.",
    noPosts: "Nog geen berichten.",
    noBlogs: "Nog geen blogs.",
    other: "Overige blogs",
    latest: "Nieuwste berichten",
    lastPost: "Laatste bericht",
    feed: "feed",
    newPost: "Nieuw bericht op {blog}",
  },
  it: {
    more: "Altri articoli",
    loading: "Caricamento…",
    failed: "Non è stato possibile caricare il blogroll in questo momento.",
    noPosts: "Ancora nessun articolo.",
    noBlogs: "Ancora nessun blog.",
    other: "Altri blog",
    latest: "Ultimi articoli",
    lastPost: "Ultimo articolo",
    feed: "feed",
    newPost: "Nuovo articolo su {blog}",
  },
  pt: {
    more: "Mais artigos",
    loading: "A carregar…",
    failed: "Não foi possível carregar o blogroll neste momento.",
    noPosts: "Ainda não há artigos.",
    noBlogs: "Ainda não há blogues.",
    other: "Outros blogues",
    latest: "Artigos recentes",
    lastPost: "Último artigo",
    feed: "feed",
    newPost: "Novo artigo em {blog}",
  },
  pl: {
    more: "Więcej wpisów",
    loading: "Wczytywanie…",
    failed: "Nie udało się teraz wczytać blogrolla.",
    noPosts: "Brak wpisów.",
    noBlogs: "Brak blogów.",
    other: "Pozostałe blogi",
    latest: "Najnowsze wpisy",
    lastPost: "Ostatni wpis",
    feed: "kanał",
    newPost: "Nowy wpis: {blog}",
  },
  "pt-br": {
    more: "Mais posts",
    loading: "Carregando…",
    failed: "Não foi possível carregar o blogroll agora.",
    noPosts: "Ainda não há posts.",
    noBlogs: "Ainda não há blogs.",
    other: "Outros blogs",
    latest: "Posts recentes",
    lastPost: "Último post",
    feed: "feed",
    newPost: "Novo post em {blog}",
  },
  sv: {
    more: "Fler inlägg",
    loading: "Laddar…",
    failed: "Blogrollen kunde inte laddas just nu.",
    noPosts: "Inga inlägg än.",
    noBlogs: "Inga bloggar än.",
    other: "Övriga bloggar",
    latest: "Senaste inläggen",
    lastPost: "Senaste inlägg",
    feed: "flöde",
    newPost: "Nytt inlägg på {blog}",
  },
  id: {
    more: "Tulisan lainnya",
    loading: "Memuat…",
    failed: "Blogroll tidak dapat dimuat saat ini.",
    noPosts: "Belum ada tulisan.",
    noBlogs: "Belum ada blog.",
    other: "Blog lainnya",
    latest: "Tulisan terbaru",
    lastPost: "Tulisan terakhir",
    feed: "feed",
    newPost: "Tulisan baru di {blog}",
  },
  sr: {
    more: "Još članaka",
    loading: "Učitavanje…",
    failed: "Blogrol trenutno nije moguće učitati.",
    noPosts: "Još nema članaka.",
    noBlogs: "Još nema blogova.",
    other: "Ostali blogovi",
    latest: "Najnoviji članci",
    lastPost: "Poslednji članak",
    feed: "fid",
    newPost: "Novi članak: {blog}",
  },
  hi: {
    more: "और पोस्ट",
    loading: "लोड हो रहा है…",
    failed: "ब्लॉगरोल अभी लोड नहीं हो सका।",
    noPosts: "अभी कोई पोस्ट नहीं।",
    noBlogs: "अभी कोई ब्लॉग नहीं।",
    other: "अन्य ब्लॉग",
    latest: "नवीनतम पोस्ट",
    lastPost: "आख़िरी पोस्ट",
    feed: "फ़ीड",
    newPost: "{blog} पर नई पोस्ट",
  },
  zh: {
    more: "更多文章",
    loading: "加载中…",
    failed: "暂时无法加载博客列表。",
    noPosts: "还没有文章。",
    noBlogs: "还没有博客。",
    other: "其他博客",
    latest: "最新文章",
    lastPost: "最后一篇文章",
    feed: "订阅源",
    newPost: "{blog} 有新文章",
  },
};

/** Posts a visitor sees when a blog is opened: the one on its line and the ones below. */
const EXPANDED_POSTS = 5;
/** Posts of the last 30 days get a relative date ("3 days ago"); older ones their date, as on the server's page. */
const RELATIVE_WITHIN = 30 * 864e5;
/** The media type a feed link announces, by the feed's format. */
const FEED_TYPES = {
  rss: "application/rss+xml",
  atom: "application/atom+xml",
  json: "application/feed+json",
  hfeed: "text/html",
};
/** Ids for aria-controls, unique across every widget on the page. */
let nextId = 0;
/** How long a new post's line stays marked as new. */
const NEW_MARK_MS = 4000;
/** A live element reads the blogroll again this long after a blog changes (spread, so 1 000 pages do not ask at once). */
const LIVE_REFRESH_MS = { min: 500, spread: 4500 };
/** After the server turned the live stream away (503 when full) or it broke off for good: the first wait, and the longest. */
const LIVE_RETRY_MS = { first: 30_000, most: 300_000 };

const styled = (selector) =>
  `:where(blogroll-blogs:not([unstyled]) ${selector},blogroll-items:not([unstyled]) ${selector})`;

/**
 * Default styles, all inside :where() so any rule of the page wins over them; the error colour readable on dark pages too.
 * Secondary text is muted by colour, never by opacity: the page's text colour mixed a quarter of the way
 * towards its background (Canvas), so it keeps its contrast on light and dark pages alike; a link in it
 * takes that colour too. Where color-mix() is unknown the text simply keeps the page's colour.
 */
const CSS = `
:where(blogroll-blogs,blogroll-items){display:block}
:where(blogroll-blogs:not([unstyled]),blogroll-items:not([unstyled])){--blogroll-gap:.5em;--blogroll-icon-size:1.25em;--blogroll-muted:color-mix(in srgb,currentColor 72%,Canvas);--blogroll-heading-size:1.1em;--blogroll-button-background:transparent;--blogroll-error:#b00020;--blogroll-tile-background:rgb(128 128 128/.2);--blogroll-tile-color:inherit;--blogroll-new:rgb(255 196 0/.35)}
@media (prefers-color-scheme:dark){:where(blogroll-blogs:not([unstyled]),blogroll-items:not([unstyled])){--blogroll-error:#ff8a80}}
${styled(".blogroll__list")}{list-style:none;margin:0 0 var(--blogroll-gap);padding:0}
${styled(".blogroll__heading")}{font-size:var(--blogroll-heading-size);margin:calc(var(--blogroll-gap)*2) 0 var(--blogroll-gap)}
${styled(".blogroll__blog")}{display:flex;flex-wrap:wrap;align-items:baseline;gap:0 .5em;margin:0 0 var(--blogroll-gap);overflow-wrap:anywhere}
${styled(".blogroll__item")}{margin:0 0 var(--blogroll-gap);overflow-wrap:anywhere}
${styled(".blogroll__icon")}{flex:none;align-self:center;width:var(--blogroll-icon-size);height:var(--blogroll-icon-size);object-fit:cover;border-radius:.2em}
${styled(".blogroll__icon--letter")}{display:inline-grid;place-items:center;font-weight:bold;line-height:1;background:var(--blogroll-tile-background);color:var(--blogroll-tile-color)}
${styled(".blogroll__name")}{font-weight:600;max-width:calc(100% - var(--blogroll-icon-size) - .5em)}
${styled(".blogroll__toggle")}{align-self:center;font:inherit;font-size:.8em;line-height:1;color:inherit;background:var(--blogroll-button-background);border:0;border-radius:.3em;padding:.2em .3em;cursor:pointer}
${styled(".blogroll__toggle")}::before{content:"▸"/""}
${styled(".blogroll__toggle[aria-expanded=true]")}::before{content:"▾"/""}
${styled(".blogroll__latest")}{min-width:0}
${styled(".blogroll__feed")},${styled(".blogroll__fediverse")},${styled(".blogroll__latest")},${styled(".blogroll__note")},${styled(".blogroll__recent")},${styled(".blogroll__meta")}{font-size:.875em}
${styled(".blogroll__feed")},${styled(".blogroll__fediverse")},${styled(".blogroll__date")},${styled(".blogroll__note")},${styled(".blogroll__meta")}{color:var(--blogroll-muted)}
${styled(".blogroll__meta .blogroll__date")}{color:inherit}
${styled(".blogroll__note")}{flex-basis:100%;margin:0}
${styled(".blogroll__recent")}{flex-basis:100%;margin:.2em 0 0;padding:0 0 0 calc(var(--blogroll-icon-size) + .5em)}
${styled(".blogroll__recent .blogroll__item")}{margin:0 0 .2em}
${styled(".blogroll__more")}{font:inherit;color:inherit;background:var(--blogroll-button-background);border:1px solid currentColor;border-radius:.3em;padding:.3em .9em;cursor:pointer}
${styled(".blogroll__more[aria-disabled=true]")}{opacity:.6;cursor:progress}
${styled(".blogroll__error")}{color:var(--blogroll-error)}
${styled(".blogroll__status")}{color:var(--blogroll-muted)}
${styled(".blogroll__new")}{animation:blogroll-new ${NEW_MARK_MS}ms ease-in;border-radius:.2em;box-shadow:-.3em 0 0 var(--blogroll-new)}
@keyframes blogroll-new{from{background:var(--blogroll-new)}to{background:transparent}}
@media (prefers-reduced-motion:reduce){${styled(".blogroll__new")}{animation:none;background:var(--blogroll-new)}}
`;

/** Constructed style sheets are not inline styles, so a strict Content-Security-Policy allows them; a <style> element otherwise. */
function adoptStyles() {
  try {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  } catch {
    const style = document.createElement("style");
    style.textContent = CSS;
    document.head.append(style);
  }
}

/** Elements matching `selector` whose data attribute `key` is `value` (compared as text: nothing to escape). */
function withData(root, selector, key, value) {
  return [...root.querySelectorAll(selector)].filter((node) => node.dataset[key] === value);
}

function element(name, className, text) {
  const node = document.createElement(name);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Only http(s) addresses become links or images: a feed's `javascript:` URL stays text. */
function httpUrl(value) {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

/** A link when the address is usable, else plain text (without its u-url); always text content, never markup. */
function link(href, text, className) {
  const url = href ? httpUrl(href) : null;
  const node = element(url ? "a" : "span", url ? className : className.replace(/ ?\bu-url\b/, ""), text);
  if (url) {
    node.href = url;
    node.rel = "noopener";
  }
  return node;
}

const UNITS = [
  ["year", 31_536e6],
  ["month", 2_592e6],
  ["week", 6_048e5],
  ["day", 864e5],
  ["hour", 36e5],
  ["minute", 6e4],
];

function intl(make, lang) {
  try {
    return make(lang);
  } catch {
    return make("en"); // an invalid lang attribute must not break the widget
  }
}

/**
 * <time datetime> with the full date as its title and, in the page's language, a relative date
 * ("3 days ago") within the last 30 days or always (an age), else the day.
 */
function time(iso, lang, className, always = false) {
  const date = new Date(iso);
  const node = element("time", className);
  if (Number.isNaN(date.getTime())) return node;
  node.dateTime = date.toISOString();
  node.title = intl((l) => new Intl.DateTimeFormat(l, { dateStyle: "long", timeStyle: "short" }), lang).format(date);
  const diff = date.getTime() - Date.now();
  if (!always && Math.abs(diff) >= RELATIVE_WITHIN) {
    node.textContent = intl((l) => new Intl.DateTimeFormat(l, { dateStyle: "medium" }), lang).format(date);
    return node;
  }
  const [unit, size] = UNITS.find(([, ms]) => Math.abs(diff) >= ms) ?? UNITS[UNITS.length - 1];
  node.textContent = intl((l) => new Intl.RelativeTimeFormat(l, { numeric: "auto" }), lang).format(
    Math.round(diff / size),
    unit,
  );
  return node;
}

/** A title for a post without one (notes): the start of its summary, else its address. */
function postTitle(item) {
  if (item.title) return item.title;
  const summary = (item.summary ?? "").trim();
  if (summary) return summary.length > 80 ? `${summary.slice(0, 79).trimEnd()}…` : summary;
  return item.url ?? "";
}

/** A post as an h-entry's content: its linked title (u-url p-name) and date (dt-published). */
function entry(node, post, lang, className) {
  node.append(link(post.url, postTitle(post), `${className} u-url p-name`));
  if (post.published) node.append(" ", time(post.published, lang, "blogroll__date dt-published"));
  return node;
}

/** The page's one polite status line for live news, out of sight (screen readers say it; sighted visitors see the mark). */
let announcer = null;

function announce(text) {
  if (!announcer?.isConnected) {
    announcer = element("p", "blogroll__announcer");
    announcer.setAttribute("role", "status");
    // Set through the style object, not a style attribute, which a strict CSP would refuse.
    Object.assign(announcer.style, {
      position: "absolute",
      width: "1px",
      height: "1px",
      margin: "-1px",
      padding: "0",
      overflow: "hidden",
      clipPath: "inset(50%)",
      whiteSpace: "nowrap",
      border: "0",
    });
    document.body.append(announcer);
  }
  announcer.textContent = text;
}

/**
 * One EventSource per events address for the page. The browser reconnects after a broken stream by
 * itself; turned away (503 when full) it gives up, so this waits and opens another, resuming from
 * the last event seen (having seen none: its elements read the blogroll again).
 */
class LiveSource {
  static #all = new Map();
  #url;
  #source = null;
  #listeners = new Set();
  #lastId = "";
  #retry = null;
  #wait = LIVE_RETRY_MS.first;

  static for(url) {
    let source = LiveSource.#all.get(url);
    if (!source) LiveSource.#all.set(url, (source = new LiveSource(url)));
    return source;
  }

  constructor(url) {
    this.#url = url;
  }

  /** `listener(type, data, id)` for each event; it returns the blog's title when it showed a new post. Returns the way to stop. */
  subscribe(listener) {
    this.#listeners.add(listener);
    if (!this.#source && !this.#retry) this.#open(false);
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size > 0) return;
      this.#source?.close();
      this.#source = null;
      clearTimeout(this.#retry);
      this.#retry = null;
    };
  }

  #open(again) {
    this.#retry = null;
    const url = new URL(this.#url);
    if (this.#lastId) url.searchParams.set("lastEventId", this.#lastId);
    const source = new EventSource(url);
    this.#source = source;
    source.addEventListener("open", () => {
      this.#wait = LIVE_RETRY_MS.first;
      // Back after a gap with nothing to resume from: what changed meanwhile is unknown.
      if (again && !this.#lastId) this.#dispatch("reset", {});
    });
    for (const type of ["post", "blog", "reset"]) {
      source.addEventListener(type, (event) => {
        if (event.lastEventId) this.#lastId = event.lastEventId;
        let data;
        try {
          data = JSON.parse(event.data);
        } catch {
          return; // not an event this widget knows
        }
        this.#dispatch(type, data, event.lastEventId);
      });
    }
    source.addEventListener("error", () => {
      if (source.readyState !== EventSource.CLOSED || this.#source !== source) return;
      this.#source = null;
      this.#retry = setTimeout(() => this.#open(true), this.#wait * (0.5 + Math.random()));
      this.#wait = Math.min(this.#wait * 2, LIVE_RETRY_MS.most);
    });
  }

  #dispatch(type, data, id = "") {
    let shownOn = null;
    for (const listener of [...this.#listeners]) shownOn = listener(type, data, id) || shownOn;
    if (shownOn) announce(shownOn);
  }
}

class BlogrollElement extends HTMLElement {
  static observedAttributes = ["src", "category", "limit", "lang", "live"];
  #controller = null;
  #scheduled = false;
  #unfollow = null;
  #refreshTimer = null;
  /** The id of the last live event this element heard: what it reads afterwards must include that change. */
  seenEventId = "";

  connectedCallback() {
    this.#schedule();
    this.#follow();
  }

  disconnectedCallback() {
    this.#controller?.abort();
    this.#stopFollowing();
  }

  attributeChangedCallback(name, before, after) {
    if (before === after || !this.isConnected) return;
    if (name === "live" || name === "src") this.#follow();
    if (name !== "live") this.#schedule();
  }

  /** Where the API lives: `src` (the mount path), else beside this module. */
  get base() {
    const src = this.getAttribute("src");
    return src ? new URL(src.replace(/\/*$/, "/"), document.baseURI) : new URL(MODULE_BASE);
  }

  /** With `live`: the page's shared live source for this blogroll. */
  #follow() {
    this.#stopFollowing();
    this.seenEventId = "";
    if (!this.hasAttribute("live")) return;
    this.#unfollow = LiveSource.for(new URL("api/events", this.base).href).subscribe((type, data, id) => {
      if (id) this.seenEventId = id;
      return this.#onLive(type, data);
    });
  }

  #stopFollowing() {
    this.#unfollow?.();
    this.#unfollow = null;
    clearTimeout(this.#refreshTimer);
    this.#refreshTimer = null;
  }

  /** A live event; returns what to announce when it showed a new post. */
  #onLive(type, data) {
    if (type === "post")
      return this.showPost(data) ? this.strings.newPost.replace("{blog}", data.blog?.title ?? "") : null;
    if (type === "reset") this.#schedule();
    else if (type === "blog") {
      if (data.change === "removed") this.dropBlog(data.id);
      this.refreshSoon();
    }
    return null;
  }

  /** Reads the blogroll again a little later (once for any number of changes meanwhile); what is shown stays until then. */
  refreshSoon() {
    if (this.#refreshTimer) return;
    this.#refreshTimer = setTimeout(
      () => {
        this.#refreshTimer = null;
        if (this.isConnected) void this.refresh();
      },
      LIVE_REFRESH_MS.min + Math.random() * LIVE_REFRESH_MS.spread,
    );
  }

  /** Marks a line as new for a moment (a fading highlight; steady with reduced motion). */
  markNew(node) {
    node.classList.add("blogroll__new");
    setTimeout(() => node.classList.remove("blogroll__new"), NEW_MARK_MS);
  }

  /** One refresh for any number of attribute changes in the same task (an upgrade reports each attribute). */
  #schedule() {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      if (this.isConnected) void this.refresh();
    });
  }

  get language() {
    return (this.closest("[lang]")?.getAttribute("lang") || navigator.language || "en").trim() || "en";
  }

  get strings() {
    const tag = this.language.toLowerCase();
    return STRINGS[tag] ?? STRINGS[tag.split("-")[0]] ?? STRINGS.en;
  }

  /** A positive integer attribute, else the fallback. */
  number(name, fallback) {
    const value = Number.parseInt(this.getAttribute(name) ?? "", 10);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  }

  /** GET a path relative to `src` (the mount path), with the non-empty parameters; throws unless the answer is JSON with `list` an array. */
  async api(path, parameters, signal, list = "items") {
    const url = new URL(path, this.base);
    for (const [key, value] of Object.entries(parameters))
      if (value !== null && value !== undefined && value !== "") url.searchParams.set(key, String(value));
    // Live: the browser's copy may be older than the events that follow (an ETag keeps asking cheap).
    const response = await fetch(url, {
      signal,
      cache: this.hasAttribute("live") ? "no-cache" : "default",
      headers: { Accept: "application/json" },
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body = await response.json();
    if (!body || !Array.isArray(body[list])) throw new Error("not a blogroll answer");
    return body;
  }

  busy(value) {
    this.setAttribute("aria-busy", String(value));
  }

  /**
   * Loads and renders afresh; any failure becomes a short message in the widget, never an uncaught
   * error. Markup already inside (the server's fragment) stays until the new content is ready, and
   * stays when loading fails: it is the same blogroll.
   */
  async refresh() {
    this.#controller?.abort();
    const controller = new AbortController();
    this.#controller = controller;
    this.busy(true);
    const placed = this.querySelector(":scope > .blogroll, :scope > .blogroll__list");
    if (!placed) this.replaceChildren(element("p", "blogroll__status", this.strings.loading));
    try {
      const content = await this.render(controller.signal);
      if (!controller.signal.aborted) this.replaceChildren(...content);
    } catch {
      if (!controller.signal.aborted && !placed) this.replaceChildren(this.failure());
    } finally {
      if (this.#controller === controller) this.busy(false);
    }
  }

  failure() {
    const message = element("p", "blogroll__error", this.strings.failed);
    message.setAttribute("role", "status");
    return message;
  }
}

/** A blog's letter tile: its picture's stand-in when it has none, or when the picture fails to load. */
function letterTile(title) {
  const tile = element(
    "span",
    "blogroll__icon blogroll__icon--letter",
    [...(title ?? "").trim()][0]?.toLocaleUpperCase() ?? "?",
  );
  tile.setAttribute("aria-hidden", "true");
  return tile;
}

/**
 * <blogroll-blogs src category sort limit heading-level group>: the server's blogroll.json rendered
 * as its fragment is (one request): blogs grouped by category (or one list with group="none"), one
 * h-card per line with icon, name, feed and latest post; a blog with more posts opens to them.
 */
class BlogrollBlogs extends BlogrollElement {
  static observedAttributes = [...BlogrollElement.observedAttributes, "sort", "heading-level", "group"];
  /** The blogs on show, by id, as last rendered (live posts update them), and their render's signal. */
  #shown = new Map();
  #signal = null;

  async render(signal) {
    const category = this.getAttribute("category");
    const group = this.getAttribute("group") === "none" ? "none" : null;
    const sort = this.getAttribute("sort") === "recent" ? "recent" : null;
    // After a live event: an answer the server has rebuilt since that change (its kept one may predate it).
    const lastEventId = this.seenEventId;
    const body = await this.api("blogroll.json", { category, group, sort, lastEventId }, signal, "groups");
    // At most `limit` blogs, in the server's order (natural title order, or newest post first).
    let room = this.number("limit", Infinity);
    const groups = [];
    for (const { category: name, blogs } of body.groups) {
      if (room <= 0) break;
      groups.push({ name, blogs: blogs.slice(0, room) });
      room -= blogs.length;
    }
    this.#shown = new Map(groups.flatMap(({ blogs }) => blogs.map((blog) => [blog.id, blog])));
    this.#signal = signal;
    if (groups.length === 0) return [element("p", "blogroll__status", this.strings.noBlogs)];
    const list = (members) => {
      const node = element("ul", "blogroll__list blogroll__blogs");
      for (const blog of members) node.append(this.blog(blog, signal));
      return node;
    };
    const root = element("div", "blogroll");
    // One category (asked for, or the only one there is) needs no heading.
    const headed = !category && !group && groups.some(({ name }) => name !== null);
    const level = Math.min(6, this.number("heading-level", 2));
    for (const { name, blogs } of groups) {
      if (!headed) {
        root.append(list(blogs));
        continue;
      }
      const node = element("div", "blogroll__group");
      node.append(element(`h${level}`, "blogroll__heading", name ?? this.strings.other), list(blogs));
      root.append(node);
    }
    return [root];
  }

  /** One blog's line: the markup of the server's fragment (h-card, its feed, its latest post as an h-entry), plus the expand control. */
  blog(blog, signal) {
    const row = element("li", "blogroll__blog h-card");
    row.dataset.blog = blog.id;
    const photo = blog.photo ? httpUrl(blog.photo) : null;
    if (photo) {
      const icon = element("img", "blogroll__icon u-photo");
      Object.assign(icon, {
        src: photo,
        alt: "",
        width: 16,
        height: 16,
        loading: "lazy",
        referrerPolicy: "no-referrer",
      });
      // A picture that fails (gone, not an image, refused by the page's CSP) becomes the letter tile.
      icon.addEventListener("error", () => icon.replaceWith(letterTile(blog.title)), { once: true });
      row.append(icon);
    } else {
      row.append(letterTile(blog.title));
    }
    const name = link(httpUrl(blog.siteUrl) ?? blog.feedUrl, blog.title, "blogroll__name p-name u-url");
    // Who the author is to the owner (XFN) sits on the link to them.
    if (name.rel && blog.relationship?.length) name.rel = `${blog.relationship.join(" ")} noopener`;
    row.append(" ", name);
    const [post] = blog.posts ?? [];
    const opens = post && (blog.itemCount > 1 || blog.source === "microsub") ? this.expander(blog, post, signal) : null;
    if (opens) row.append(" ", opens.button);
    if (post)
      row.append(" ", entry(element("span", "blogroll__latest h-entry"), post, this.language, "blogroll__post"));
    else if (blog.lastPostAt) {
      const line = element("span", "blogroll__latest", `${this.strings.lastPost} `);
      line.append(time(blog.lastPostAt, this.language, "blogroll__date", true));
      row.append(" ", line);
    }
    const feed = link(blog.feedUrl, this.strings.feed, "blogroll__feed");
    feed.rel = "alternate noopener";
    if (FEED_TYPES[blog.feedType]) feed.type = FEED_TYPES[blog.feedType];
    row.append(" ", feed);
    if (blog.fediverse) row.append(" ", link(blog.fediverseUrl, blog.fediverse, "blogroll__fediverse u-url"));
    if (blog.note) row.append(" ", element("p", "blogroll__note p-note", blog.note));
    // Its posts open below the line (the row wraps there).
    if (opens) row.append(opens.panel);
    return row;
  }

  /**
   * A live post on its blog's line (to the top of its list with sort="recent"), focus and an open
   * list kept. A blog not on show: read again with sort="recent", else not this element's news.
   */
  showPost(item) {
    const id = item.blog?.id;
    const category = this.getAttribute("category");
    if (!id || (category && item.blog.category !== category)) return false;
    const recent = this.getAttribute("sort") === "recent";
    const blog = this.#shown.get(id);
    const [row] = blog ? withData(this, "li.blogroll__blog", "blog", id) : [];
    if (!row) {
      if (recent) this.refreshSoon();
      return false;
    }
    const { blog: _context, ...post } = item;
    const posts = blog.posts ?? [];
    if (posts.some((shown) => shown.id === post.id)) return false;
    const newest = (a, b) => Date.parse(b.published ?? "") - Date.parse(a.published ?? "") || 0;
    const updated = {
      ...blog,
      posts: [post, ...posts].sort(newest).slice(0, Math.max(1, posts.length)),
      itemCount: (blog.itemCount ?? 0) + 1,
      lastPostAt:
        post.published && (!blog.lastPostAt || post.published > blog.lastPostAt) ? post.published : blog.lastPostAt,
    };
    this.#shown.set(id, updated);
    const next = this.blog(updated, this.#signal);
    const focused = row.contains(document.activeElement) ? document.activeElement.classList[0] : null;
    const open = row.querySelector(".blogroll__toggle")?.getAttribute("aria-expanded") === "true";
    row.replaceWith(next);
    if (recent) {
      // Newest first after the pinned ones (a pinned blog: first of all).
      const list = next.parentElement;
      const first = [...list.children].find(
        (line) => line === next || updated.pinned || !this.#shown.get(line.dataset.blog)?.pinned,
      );
      if (first !== next) list.insertBefore(next, first);
    }
    if (open) next.querySelector(".blogroll__toggle")?.click();
    if (focused) next.querySelector(`.${focused}`)?.focus();
    this.markNew(next);
    return true;
  }

  dropBlog(id) {
    this.#shown.delete(id);
    for (const row of withData(this, "li.blogroll__blog", "blog", id)) row.remove();
  }

  /**
   * A disclosure button beside the name (aria-expanded, aria-controls): it opens the blog's latest
   * posts below its line, the one on the line not repeated (five in all), fetched with one request
   * on first opening. Focus stays on the button, as with any disclosure.
   */
  expander(blog, shown, signal) {
    const panel = element("ul", "blogroll__list blogroll__recent");
    panel.id = `blogroll-posts-${++nextId}`;
    panel.hidden = true;
    const button = element("button", "blogroll__toggle");
    button.type = "button";
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-controls", panel.id);
    // The glyph is decoration: the name says what opens, and whose.
    button.setAttribute("aria-label", `${this.strings.latest}: ${blog.title ?? ""}`.trim());
    let loaded = false;
    button.addEventListener("click", async () => {
      const open = button.getAttribute("aria-expanded") !== "true";
      button.setAttribute("aria-expanded", String(open));
      panel.hidden = !open;
      if (!open || loaded || panel.getAttribute("aria-busy") === "true") return;
      panel.setAttribute("aria-busy", "true");
      panel.replaceChildren(element("li", "blogroll__status", this.strings.loading));
      try {
        const page = await this.api("api/items", { blog: blog.id, limit: EXPANDED_POSTS }, signal);
        const posts = page.items.filter((post) => post.id !== shown.id).slice(0, EXPANDED_POSTS - 1);
        panel.replaceChildren(
          ...posts.map((post) =>
            entry(element("li", "blogroll__item h-entry"), post, this.language, "blogroll__title"),
          ),
        );
        if (posts.length === 0) panel.append(element("li", "blogroll__status", this.strings.noPosts));
        loaded = true;
      } catch {
        // Closing and opening again tries again.
        if (!signal.aborted) panel.replaceChildren(element("li", "blogroll__error", this.strings.failed));
      } finally {
        panel.setAttribute("aria-busy", "false");
      }
    });
    return { button, panel };
  }
}

/** <blogroll-items src category blog limit>: the newest posts as h-entries, with their blog and date, and a "more" button paging with offset. */
class BlogrollItems extends BlogrollElement {
  static observedAttributes = [...BlogrollElement.observedAttributes, "blog"];
  #offset = 0;

  page(signal) {
    const limit = this.number("limit", 10);
    return this.api(
      "api/items",
      { category: this.getAttribute("category"), blog: this.getAttribute("blog"), limit, offset: this.#offset },
      signal,
    );
  }

  async render(signal) {
    this.#offset = 0;
    const first = await this.page(signal);
    if (first.items.length === 0) return [element("p", "blogroll__status", this.strings.noPosts)];
    const list = element("ul", "blogroll__list blogroll__items");
    this.addItems(list, first.items);
    if (!first.hasMore) return [list];
    const more = element("button", "blogroll__more", this.strings.more);
    more.type = "button";
    more.addEventListener("click", () => void this.more(list, more, signal));
    return [list, more];
  }

  addItems(list, items) {
    this.#offset += items.length;
    const rows = items.map((item) => this.item(item));
    list.append(...rows);
    return rows;
  }

  async more(list, button, signal) {
    if (button.getAttribute("aria-disabled") === "true") return;
    button.setAttribute("aria-disabled", "true");
    this.busy(true);
    this.querySelector(":scope > .blogroll__error")?.remove();
    try {
      const next = await this.page(signal);
      if (signal.aborted) return;
      const rows = this.addItems(list, next.items);
      if (!next.hasMore) {
        // The button had focus: hand it to the first new post rather than losing it.
        const target = rows[0]?.querySelector("a") ?? list;
        if (target === list) list.tabIndex = -1;
        button.remove();
        target.focus();
      }
    } catch {
      if (!signal.aborted) button.before(this.failure());
    } finally {
      button.removeAttribute("aria-disabled");
      if (!signal.aborted) this.busy(false);
    }
  }

  /** A live post, in its place among those shown (undated: on top); the last shown moves on to the next page. */
  showPost(item) {
    const category = this.getAttribute("category");
    const blog = this.getAttribute("blog");
    if ((category && item.blog?.category !== category) || (blog && item.blog?.id !== blog)) return false;
    const list = this.querySelector(":scope > .blogroll__items");
    if (!list) {
      // "No posts yet": render afresh.
      this.refreshSoon();
      return false;
    }
    if (withData(list, ":scope > li", "item", item.id).length > 0) return false;
    const at = item.published ? Date.parse(item.published) : Number.POSITIVE_INFINITY;
    const before = [...list.children].find((row) => !row.dataset.published || Date.parse(row.dataset.published) < at);
    if (!before) return false;
    const row = this.item(item);
    list.insertBefore(row, before);
    if (this.querySelector(":scope > .blogroll__more")) list.lastElementChild.remove();
    this.markNew(row);
    return true;
  }

  dropBlog(id) {
    for (const row of withData(this, "li.blogroll__item", "blog", id)) row.remove();
  }

  /** A post as an h-entry: its linked title, then its blog (the author, an h-card) and date. */
  item(item) {
    const row = element("li", "blogroll__item h-entry");
    row.dataset.item = item.id;
    if (item.blog) row.dataset.blog = item.blog.id;
    if (item.published) row.dataset.published = item.published;
    row.append(link(item.url, postTitle(item), "blogroll__title u-url p-name"));
    const meta = element("span", "blogroll__meta");
    if (item.blog) meta.append(link(item.blog.siteUrl, item.blog.title, "blogroll__source p-author h-card u-url"));
    if (item.blog && item.published) meta.append(" · ");
    if (item.published) meta.append(time(item.published, this.language, "blogroll__date dt-published"));
    row.append(" ", meta);
    return row;
  }
}

adoptStyles();
if (!customElements.get("blogroll-blogs")) customElements.define("blogroll-blogs", BlogrollBlogs);
if (!customElements.get("blogroll-items")) customElements.define("blogroll-items", BlogrollItems);
