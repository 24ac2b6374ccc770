/**
 * The blogroll widget: two custom elements for any web page, fed by the
 * blogroll's public API.
 *
 *   <script type="module" src="https://example.org/blogrollapi/widget.js"></script>
 *   <blogroll-blogs></blogroll-blogs>
 *   <blogroll-items limit="10"></blogroll-items>
 *
 * Both render into the light DOM (the page's CSS applies, the content is in
 * the page), with `blogroll__*` class names and `--blogroll-*` custom
 * properties; default styles are off with the `unstyled` attribute. Text from
 * feeds is only ever set as text, links are http(s) only. Attributes are
 * described in the README. No dependencies, no build step.
 */

/** The API lives beside this module ({mountPath}/widget.js → {mountPath}/api/…) unless `src` says otherwise. */
const MODULE_BASE = new URL(".", import.meta.url).href;

/** The few strings shown, in the admin's languages; the page's `lang` chooses (its full tag, else its language). */
const STRINGS = {
  en: { more: "More posts", loading: "Loading…", failed: "The blogroll could not be loaded right now.", noPosts: "No posts yet.", noBlogs: "No blogs yet.", other: "Other blogs", latest: "Latest posts" },
  de: { more: "Weitere Beiträge", loading: "Wird geladen …", failed: "Die Blogroll konnte gerade nicht geladen werden.", noPosts: "Noch keine Beiträge.", noBlogs: "Noch keine Blogs.", other: "Weitere Blogs", latest: "Neueste Beiträge" },
  fr: { more: "Plus d’articles", loading: "Chargement…", failed: "La blogroll n’a pas pu être chargée pour le moment.", noPosts: "Aucun article pour l’instant.", noBlogs: "Aucun blog pour l’instant.", other: "Autres blogs", latest: "Derniers articles" },
  es: { more: "Más entradas", loading: "Cargando…", failed: "No se ha podido cargar el blogroll en este momento.", noPosts: "Todavía no hay entradas.", noBlogs: "Todavía no hay blogs.", other: "Otros blogs", latest: "Últimas entradas" },
  nl: { more: "Meer berichten", loading: "Laden…", failed: "De blogroll kon nu niet worden geladen.", noPosts: "Nog geen berichten.", noBlogs: "Nog geen blogs.", other: "Overige blogs", latest: "Nieuwste berichten" },
  it: { more: "Altri articoli", loading: "Caricamento…", failed: "Non è stato possibile caricare il blogroll in questo momento.", noPosts: "Ancora nessun articolo.", noBlogs: "Ancora nessun blog.", other: "Altri blog", latest: "Ultimi articoli" },
  pt: { more: "Mais artigos", loading: "A carregar…", failed: "Não foi possível carregar o blogroll neste momento.", noPosts: "Ainda não há artigos.", noBlogs: "Ainda não há blogues.", other: "Outros blogues", latest: "Artigos recentes" },
  pl: { more: "Więcej wpisów", loading: "Wczytywanie…", failed: "Nie udało się teraz wczytać blogrolla.", noPosts: "Brak wpisów.", noBlogs: "Brak blogów.", other: "Pozostałe blogi", latest: "Najnowsze wpisy" },
  "pt-br": { more: "Mais posts", loading: "Carregando…", failed: "Não foi possível carregar o blogroll agora.", noPosts: "Ainda não há posts.", noBlogs: "Ainda não há blogs.", other: "Outros blogs", latest: "Posts recentes" },
  sv: { more: "Fler inlägg", loading: "Laddar…", failed: "Blogrollen kunde inte laddas just nu.", noPosts: "Inga inlägg än.", noBlogs: "Inga bloggar än.", other: "Övriga bloggar", latest: "Senaste inläggen" },
  id: { more: "Tulisan lainnya", loading: "Memuat…", failed: "Blogroll tidak dapat dimuat saat ini.", noPosts: "Belum ada tulisan.", noBlogs: "Belum ada blog.", other: "Blog lainnya", latest: "Tulisan terbaru" },
  sr: { more: "Još članaka", loading: "Učitavanje…", failed: "Blogrol trenutno nije moguće učitati.", noPosts: "Još nema članaka.", noBlogs: "Još nema blogova.", other: "Ostali blogovi", latest: "Najnoviji članci" },
  hi: { more: "और पोस्ट", loading: "लोड हो रहा है…", failed: "ब्लॉगरोल अभी लोड नहीं हो सका।", noPosts: "अभी कोई पोस्ट नहीं।", noBlogs: "अभी कोई ब्लॉग नहीं।", other: "अन्य ब्लॉग", latest: "नवीनतम पोस्ट" },
  zh: { more: "更多文章", loading: "加载中…", failed: "暂时无法加载博客列表。", noPosts: "还没有文章。", noBlogs: "还没有博客。", other: "其他博客", latest: "最新文章" },
};

/** Items read to find each blog's latest post in one request (the API's largest page). */
const LATEST_WINDOW = 200;
/** Posts shown when a visitor expands a blog. */
const EXPANDED_POSTS = 5;
/** Ids for aria-controls, unique across every widget on the page. */
let nextId = 0;

const styled = (selector) => `:where(blogroll-blogs:not([unstyled]) ${selector},blogroll-items:not([unstyled]) ${selector})`;

/** Default styles, all inside :where() so any rule of the page wins over them. */
const CSS = `
:where(blogroll-blogs,blogroll-items){display:block}
:where(blogroll-blogs:not([unstyled]),blogroll-items:not([unstyled])){--blogroll-gap:.6em;--blogroll-icon-size:1.25em;--blogroll-muted:inherit;--blogroll-meta-opacity:.75;--blogroll-heading-size:1.1em;--blogroll-button-background:transparent;--blogroll-error:#b00020;--blogroll-tile-background:rgb(128 128 128/.2);--blogroll-tile-color:inherit}
${styled(".blogroll__list")}{list-style:none;margin:0 0 var(--blogroll-gap);padding:0}
${styled(".blogroll__heading")}{font-size:var(--blogroll-heading-size);margin:var(--blogroll-gap) 0 calc(var(--blogroll-gap)/2)}
${styled(".blogroll__blog")}{display:grid;grid-template-columns:var(--blogroll-icon-size) 1fr auto;gap:0 .5em;margin:0 0 var(--blogroll-gap)}
${styled(".blogroll__item")}{margin:0 0 var(--blogroll-gap)}
${styled(".blogroll__icon")}{grid-row:span 2;width:var(--blogroll-icon-size);height:var(--blogroll-icon-size);object-fit:cover;border-radius:.2em;margin-top:.1em}
${styled(".blogroll__icon--letter")}{display:grid;place-items:center;font-weight:bold;line-height:1;background:var(--blogroll-tile-background);color:var(--blogroll-tile-color)}
${styled(".blogroll__name")},${styled(".blogroll__latest")}{grid-column:2}
${styled(".blogroll__toggle")}{grid-column:3;grid-row:1;align-self:start;font:inherit;font-size:.8em;color:inherit;background:var(--blogroll-button-background);border:1px solid currentColor;border-radius:.3em;padding:.1em .5em;cursor:pointer}
${styled(".blogroll__toggle")}::before{content:"▸ "/""}
${styled(".blogroll__toggle[aria-expanded=true]")}::before{content:"▾ "/""}
${styled(".blogroll__posts")}{grid-column:2/4;margin:.3em 0 0;font-size:.875em}
${styled(".blogroll__posts .blogroll__list")}{margin:0;padding:0 0 0 .8em;border-left:2px solid var(--blogroll-tile-background)}
${styled(".blogroll__posts .blogroll__item")}{margin:0 0 .25em}
${styled(".blogroll__latest")},${styled(".blogroll__meta")}{display:block;font-size:.875em;color:var(--blogroll-muted);opacity:var(--blogroll-meta-opacity)}
${styled(".blogroll__more")}{font:inherit;color:inherit;background:var(--blogroll-button-background);border:1px solid currentColor;border-radius:.3em;padding:.3em .9em;cursor:pointer}
${styled(".blogroll__more[aria-disabled=true]")}{opacity:.6;cursor:progress}
${styled(".blogroll__error")}{color:var(--blogroll-error)}
${styled(".blogroll__status")}{opacity:var(--blogroll-meta-opacity)}
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

/** A link when the address is usable, else plain text; always text content, never markup. */
function link(href, text, className) {
  const url = href ? httpUrl(href) : null;
  const node = element(url ? "a" : "span", className, text);
  if (url) {
    node.href = url;
    node.rel = "noopener";
  }
  return node;
}

const UNITS = [["year", 31_536e6], ["month", 2_592e6], ["week", 6_048e5], ["day", 864e5], ["hour", 36e5], ["minute", 6e4]];

function intl(make, lang) {
  try {
    return make(lang);
  } catch {
    return make("en"); // an invalid lang attribute must not break the widget
  }
}

/** <time datetime> with a relative date ("3 days ago") in the page's language, the full date as its title. */
function time(iso, lang) {
  const date = new Date(iso);
  const node = element("time", "blogroll__date");
  if (Number.isNaN(date.getTime())) return node;
  node.dateTime = date.toISOString();
  node.title = intl((l) => new Intl.DateTimeFormat(l, { dateStyle: "long", timeStyle: "short" }), lang).format(date);
  const relative = intl((l) => new Intl.RelativeTimeFormat(l, { numeric: "auto" }), lang);
  const diff = date.getTime() - Date.now();
  const [unit, size] = UNITS.find(([, ms]) => Math.abs(diff) >= ms) ?? UNITS[UNITS.length - 1];
  node.textContent = relative.format(Math.round(diff / size), unit);
  return node;
}

/** A title for a post without one (notes): the start of its summary, else its address. */
function postTitle(item) {
  if (item.title) return item.title;
  const summary = (item.summary ?? "").trim();
  if (summary) return summary.length > 80 ? `${summary.slice(0, 79).trimEnd()}…` : summary;
  return item.url ?? "";
}

class BlogrollElement extends HTMLElement {
  static observedAttributes = ["src", "category", "limit", "lang"];
  #controller = null;
  #scheduled = false;

  connectedCallback() {
    this.#schedule();
  }

  disconnectedCallback() {
    this.#controller?.abort();
  }

  attributeChangedCallback(_name, before, after) {
    if (before !== after && this.isConnected) this.#schedule();
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

  /** GET an API path relative to `src` (the mount path), with the non-empty parameters; throws on anything but a JSON list. */
  async api(path, parameters, signal) {
    const src = this.getAttribute("src");
    const url = new URL(path, src ? new URL(src.replace(/\/*$/, "/"), document.baseURI) : MODULE_BASE);
    for (const [key, value] of Object.entries(parameters)) if (value !== null && value !== undefined && value !== "") url.searchParams.set(key, String(value));
    const response = await fetch(url, { signal, headers: { Accept: "application/json" } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body = await response.json();
    if (!body || !Array.isArray(body.items)) throw new Error("not a blogroll answer");
    return body;
  }

  busy(value) {
    this.setAttribute("aria-busy", String(value));
  }

  /** Loads and renders afresh; any failure becomes a short message in the widget, never an uncaught error. */
  async refresh() {
    this.#controller?.abort();
    const controller = new AbortController();
    this.#controller = controller;
    this.busy(true);
    this.replaceChildren(element("p", "blogroll__status", this.strings.loading));
    try {
      const content = await this.render(controller.signal);
      if (!controller.signal.aborted) this.replaceChildren(...content);
    } catch {
      if (!controller.signal.aborted) this.replaceChildren(this.failure());
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
  const tile = element("span", "blogroll__icon blogroll__icon--letter", [...(title ?? "").trim()][0]?.toLocaleUpperCase() ?? "?");
  tile.setAttribute("aria-hidden", "true");
  return tile;
}

/** A post's title linked, and its date. */
function postLine(post, lang, className) {
  const line = element("li", className);
  line.append(link(post.url, postTitle(post), "blogroll__title"));
  if (post.published) line.append(" ", time(post.published, lang));
  return line;
}

/**
 * <blogroll-blogs src category sort limit heading-level group>: blogs grouped by category (or in one
 * list with group="none"), with icon, linked name and latest post; each expands to its latest posts.
 */
class BlogrollBlogs extends BlogrollElement {
  static observedAttributes = [...BlogrollElement.observedAttributes, "sort", "heading-level", "group"];

  async render(signal) {
    const category = this.getAttribute("category");
    const sort = this.getAttribute("sort") === "recent" ? "recent" : "title";
    const [blogs, items] = await Promise.all([
      this.api("api/blogs", { category, sort, limit: this.number("limit", 100) }, signal),
      // Without posts the blogs still show: the latest posts are an extra.
      this.api("api/items", { category, limit: LATEST_WINDOW }, signal).catch(() => ({ items: [] })),
    ]);
    if (blogs.items.length === 0) return [element("p", "blogroll__status", this.strings.noBlogs)];

    const latest = new Map();
    for (const item of items.items) if (item.blog && !latest.has(item.blog.id)) latest.set(item.blog.id, item);
    const list = (members) => {
      const node = element("ul", "blogroll__list blogroll__blogs");
      for (const blog of members) node.append(this.blog(blog, latest.get(blog.id), signal));
      return node;
    };
    // One list in the API's order (with sort="recent": the blog with the newest post first).
    if (this.getAttribute("group") === "none") return [list(blogs.items)];
    const groups = new Map();
    for (const blog of blogs.items) {
      const key = blog.category || "";
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(blog);
    }
    const collator = intl((l) => new Intl.Collator(l), this.language);
    const names = [...groups.keys()].sort((a, b) => (a === "" ? 1 : b === "" ? -1 : collator.compare(a, b)));
    // One category (asked for, or the only one there is) needs no heading.
    const headed = !category && names.some((name) => name !== "");
    const level = Math.min(6, this.number("heading-level", 2));
    return names.map((name) => {
      if (!headed) return list(groups.get(name));
      const group = element("div", "blogroll__group");
      group.append(element(`h${level}`, "blogroll__heading", name || this.strings.other), list(groups.get(name)));
      return group;
    });
  }

  blog(blog, post, signal) {
    const row = element("li", "blogroll__blog");
    const photo = blog.photo ? httpUrl(blog.photo) : null;
    if (photo) {
      const icon = element("img", "blogroll__icon");
      Object.assign(icon, { src: photo, alt: "", width: 16, height: 16, loading: "lazy", referrerPolicy: "no-referrer" });
      // A picture that fails (gone, not an image, refused by the page's CSP) becomes the letter tile.
      icon.addEventListener("error", () => icon.replaceWith(letterTile(blog.title)), { once: true });
      row.append(icon);
    } else {
      row.append(letterTile(blog.title));
    }
    row.append(link(blog.siteUrl || blog.feedUrl, blog.title, "blogroll__name"));
    const date = post?.published ?? blog.lastItemAt;
    if (post || date) {
      const line = element("span", "blogroll__latest");
      if (post) line.append(link(post.url, postTitle(post), "blogroll__post"));
      if (post && date) line.append(" ");
      if (date) line.append(time(date, this.language));
      row.append(line);
    }
    if (date) this.expander(row, blog, signal);
    return row;
  }

  /**
   * A disclosure button (aria-expanded, aria-controls) showing the blog's latest posts below it,
   * fetched with one request on first opening. Focus stays on the button, as with any disclosure.
   */
  expander(row, blog, signal) {
    const panel = element("div", "blogroll__posts");
    panel.id = `blogroll-posts-${++nextId}`;
    panel.hidden = true;
    const button = element("button", "blogroll__toggle", this.strings.latest);
    button.type = "button";
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-controls", panel.id);
    // Many buttons share the visible text: the blog's name tells them apart for screen readers.
    button.setAttribute("aria-label", `${this.strings.latest}: ${blog.title ?? ""}`.trim());
    let loaded = false;
    button.addEventListener("click", async () => {
      const open = button.getAttribute("aria-expanded") !== "true";
      button.setAttribute("aria-expanded", String(open));
      panel.hidden = !open;
      if (!open || loaded || panel.getAttribute("aria-busy") === "true") return;
      panel.setAttribute("aria-busy", "true");
      panel.replaceChildren(element("p", "blogroll__status", this.strings.loading));
      try {
        const page = await this.api("api/items", { blog: blog.id, limit: EXPANDED_POSTS }, signal);
        const posts = element("ul", "blogroll__list blogroll__recent");
        for (const post of page.items) posts.append(postLine(post, this.language, "blogroll__item"));
        panel.replaceChildren(page.items.length > 0 ? posts : element("p", "blogroll__status", this.strings.noPosts));
        loaded = true;
      } catch {
        // Closing and opening again tries again.
        if (!signal.aborted) panel.replaceChildren(this.failure());
      } finally {
        panel.setAttribute("aria-busy", "false");
      }
    });
    row.append(button, panel);
  }
}

/** <blogroll-items src category blog limit>: the newest posts, with their blog and date, and a "more" button paging with offset. */
class BlogrollItems extends BlogrollElement {
  static observedAttributes = [...BlogrollElement.observedAttributes, "blog"];
  #offset = 0;

  page(signal) {
    const limit = this.number("limit", 10);
    return this.api("api/items", { category: this.getAttribute("category"), blog: this.getAttribute("blog"), limit, offset: this.#offset }, signal);
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

  item(item) {
    const row = element("li", "blogroll__item");
    row.append(link(item.url, postTitle(item), "blogroll__title"));
    const meta = element("span", "blogroll__meta");
    if (item.blog) meta.append(link(item.blog.siteUrl, item.blog.title, "blogroll__source"));
    if (item.blog && item.published) meta.append(" · ");
    if (item.published) meta.append(time(item.published, this.language));
    row.append(" ", meta);
    return row;
  }
}

adoptStyles();
if (!customElements.get("blogroll-blogs")) customElements.define("blogroll-blogs", BlogrollBlogs);
if (!customElements.get("blogroll-items")) customElements.define("blogroll-items", BlogrollItems);
