/**
 * Manual check: renders every admin page with Indiekit's own layout and
 * component macros (the published @indiekit/frontend package), the way
 * Indiekit builds its Nunjucks environment, and reports render errors and
 * controls without their label, legend or hint.
 *
 *   node --import tsx bench/indiekit-templates.ts [scratch folder]
 *
 * @indiekit/frontend cannot be a devDependency: it depends on @indiekit/util
 * and @indiekit/error, which the registry reachable here does not have, and
 * on sharp, esbuild and lightningcss (native build tooling) for Indiekit's
 * asset pipeline. So the first run prepares a scratch folder (default
 * /tmp/indiekit-try): `npm pack` of the frontend, `npm install` of the few
 * packages its Nunjucks filters and globals import (markdown-it and plugins,
 * lodash, color, iso-639-1, nunjucks, i18n), and a small stand-in for the
 * five @indiekit/util helpers the filters import (written here, not copied).
 * Nothing is installed in the project.
 *
 * The host side mirrors Indiekit: views are looked up in the frontend's
 * components/ and layouts/ folders, then the plugin's views folder resolved
 * against `plugin.meta.url`; `__` is i18n-node over the frontend's and the
 * plugin's catalogs (found through `meta.url` too); `application` carries the
 * fields document.njk reads; a session object stands in for express-session
 * (the plugin keeps its CSRF token there). Exit status 1 when a problem is found.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import express, { type NextFunction, type Request, type Response } from "express";
import { parseDocument } from "htmlparser2";
import { findAll, getAttributeValue, textContent } from "domutils";
import type { Element } from "domhandler";
import BlogrollEndpoint from "../index.js";
import { createIndiekitShim } from "../lib/standalone/app.js";
import { addBlog, addItems, item } from "../test/support/seed.js";
import { memoryLogger } from "../test/support/server.js";

const FRONTEND_VERSION = process.env.INDIEKIT_FRONTEND_VERSION ?? "1.0.0-beta.29";
const scratch = path.resolve(process.argv[2] ?? path.join(tmpdir(), "indiekit-try"));
const frontendRoot = path.join(scratch, "node_modules", "@indiekit", "frontend");

/** Our own minimal versions of the @indiekit/util helpers the frontend's filters import. */
const UTIL_STAND_IN = `
export const slugify = (text = "", options = {}) => {
  let value = String(text);
  if (options.decamelize) value = value.replace(/([a-z0-9])([A-Z])/g, "$1-$2");
  return value.toLowerCase().normalize("NFKD").replace(/[^\\w\\s-]/g, "").trim().replace(/[\\s_-]+/g, "-");
};
export const excerpt = (text = "", words = 100) => String(text).split(/\\s+/).slice(0, words).join(" ");
export const formatDate = (value) => new Date(value).toISOString();
export const formatZonedToLocalDate = (value) => String(value);
export const getCanonicalUrl = (value, base) => new URL(value, base).href;
`;

function prepareScratch(): void {
  if (existsSync(path.join(frontendRoot, "lib", "nunjucks.js")) && existsSync(path.join(scratch, "node_modules", "i18n"))) return;
  mkdirSync(scratch, { recursive: true });
  const run = (args: string[]) => execFileSync("npm", args, { cwd: scratch, stdio: ["ignore", "ignore", "inherit"] });
  if (!existsSync(path.join(scratch, "package.json"))) writeFileSync(path.join(scratch, "package.json"), '{ "private": true, "type": "module" }\n');
  run(["install", "--no-audit", "--no-fund", "--legacy-peer-deps", "markdown-it@15", "markdown-it-abbr@2", "markdown-it-deflist@4", "markdown-it-footnote@4", "markdown-it-image-figures@2", "markdown-it-prism@3", "iso-639-1@3", "lodash@4", "color@5", "nunjucks@3", "i18n@0.15"]);
  run(["pack", `@indiekit/frontend@${FRONTEND_VERSION}`]);
  const tarball = readdirSync(scratch).find((name) => name.startsWith("indiekit-frontend-") && name.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack produced no tarball");
  rmSync(frontendRoot, { recursive: true, force: true });
  mkdirSync(frontendRoot, { recursive: true });
  execFileSync("tar", ["xzf", tarball, "-C", frontendRoot, "--strip-components=1"], { cwd: scratch });
  const util = path.join(scratch, "node_modules", "@indiekit", "util");
  mkdirSync(util, { recursive: true });
  writeFileSync(path.join(util, "package.json"), '{ "name": "@indiekit/util", "version": "0.0.0-stand-in", "type": "module", "main": "index.js" }\n');
  writeFileSync(path.join(util, "index.js"), UTIL_STAND_IN);
}

type Catalog = Record<string, unknown>;

function deepMerge(target: Catalog, source: Catalog): Catalog {
  for (const [key, value] of Object.entries(source)) {
    const existing = target[key];
    target[key] = value && typeof value === "object" && existing && typeof existing === "object" ? deepMerge({ ...(existing as Catalog) }, value as Catalog) : value;
  }
  return target;
}

function readJson(file: string): Catalog {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Catalog;
  } catch {
    return {};
  }
}

interface Page {
  name: string;
  status: number;
  html: string;
}

interface Problem {
  page: string;
  message: string;
}

/** The checks: render errors, "[object Object]", controls without label/legend/hint text, broken aria-describedby, double escaping, untranslated keys. */
function inspect(page: Page, missingKeys: Set<string>): Problem[] {
  const problems: Problem[] = [];
  const add = (message: string) => problems.push({ page: page.name, message });
  if (page.status >= 500) add(`HTTP ${page.status}: ${page.html.slice(0, 300)}`);
  if (!/<html/i.test(page.html)) return problems.length ? problems : [{ page: page.name, message: `not an HTML page (HTTP ${page.status})` }];
  if (page.html.includes("[object Object]")) add(`"[object Object]" in the page: …${page.html.slice(Math.max(0, page.html.indexOf("[object Object]") - 160), page.html.indexOf("[object Object]") + 40).replace(/\s+/g, " ")}…`);
  if (/&amp;(amp|lt|gt|quot|#\d+);/.test(page.html)) add(`double-escaped text: …${/.{0,80}&amp;(amp|lt|gt|quot|#\d+);.{0,40}/s.exec(page.html)?.[0].replace(/\s+/g, " ")}…`);
  if (page.html.includes("<b>Tom")) add("unescaped owner text (<b>Tom…)");
  const document = parseDocument(page.html);
  const elements = findAll(() => true, document.children) as Element[];
  const byId = new Map<string, Element>();
  for (const element of elements) {
    const id = getAttributeValue(element, "id");
    if (id) byId.set(id, element);
  }
  const labels = elements.filter((element) => element.name === "label");
  const text = (element: Element) => textContent(element).replace(/\s+/g, " ").trim();
  for (const control of elements.filter((element) => ["input", "select", "textarea"].includes(element.name))) {
    const type = getAttributeValue(control, "type") ?? "text";
    if (["hidden", "submit", "button"].includes(type)) continue;
    const id = getAttributeValue(control, "id");
    const name = getAttributeValue(control, "name");
    const label = id ? labels.find((element) => getAttributeValue(element, "for") === id) : undefined;
    if (!label) add(`${control.name}[name=${name}] has no <label for>`);
    else if (!text(label)) add(`${control.name}[name=${name}] has an empty label`);
    for (const ref of (getAttributeValue(control, "aria-describedby") ?? "").split(/\s+/).filter(Boolean)) {
      const target = byId.get(ref);
      if (!target) add(`${control.name}[name=${name}] aria-describedby="${ref}" points at nothing`);
      else if (!text(target)) add(`${control.name}[name=${name}] hint/error #${ref} is empty`);
    }
  }
  for (const fieldset of elements.filter((element) => element.name === "fieldset")) {
    const legend = fieldset.children.find((child) => (child as Element).name === "legend") as Element | undefined;
    if (legend && !text(legend)) add("a fieldset has an empty legend");
    for (const ref of (getAttributeValue(fieldset, "aria-describedby") ?? "").split(/\s+/).filter(Boolean)) {
      if (!byId.has(ref)) add(`fieldset aria-describedby="${ref}" points at nothing`);
    }
  }
  for (const element of elements.filter((element) => ["p", "label", "legend", "h1", "h2", "dt", "dd", "a", "button", "option", "strong", "li", "th", "td", "span", "title"].includes(element.name))) {
    const own = element.children.filter((child) => child.type === "text").map((child) => (child as unknown as { data: string }).data).join("");
    const key = /\bblogroll\.[a-zA-Z]+(\.[a-zA-Z]+)+\b/.exec(own);
    if (key) add(`untranslated key "${key[0]}" in <${element.name}>`);
  }
  for (const key of missingKeys) if (key.startsWith("blogroll.")) add(`missing translation "${key}"`);
  return problems;
}

async function main(): Promise<void> {
  prepareScratch();
  const { templates } = (await import(pathToFileURL(path.join(frontendRoot, "lib", "nunjucks.js")).href)) as { templates: (app: unknown) => unknown };
  const { default: i18n } = (await import(pathToFileURL(path.join(scratch, "node_modules", "i18n", "index.js")).href)) as { default: I18n };

  const folder = path.join(tmpdir(), `blogroll-indiekit-templates-${process.pid}`);
  mkdirSync(folder, { recursive: true });
  const logs: string[] = [];
  const plugin = new BlogrollEndpoint({ databasePath: path.join(folder, "blogroll.db"), mongodbUrl: null, scheduler: false, allowPrivateNetworks: true }, memoryLogger(logs));
  const application: Record<string, unknown> = {
    name: "Indiekit",
    locale: "en",
    localesAvailable: ["en", "de", "fr"],
    themeColor: "#04f",
    themeColorScheme: "automatic",
  };
  const indiekit = createIndiekitShim(application);
  await plugin.init(indiekit);

  // Catalogs as Indiekit merges them: its own (not available here), the frontend's, then each plugin's via meta.url.
  const localeCatalog = new Map<string, Catalog>();
  for (const locale of application.localesAvailable as string[]) {
    const merged = deepMerge(deepMerge({}, readJson(path.join(frontendRoot, "locales", `${locale}.json`))), readJson(fileURLToPath(new URL(`locales/${locale}.json`, plugin.meta.url))));
    localeCatalog.set(locale, merged);
  }
  const missingKeys = new Set<string>();
  i18n.configure({
    defaultLocale: "en",
    objectNotation: true,
    staticCatalog: Object.fromEntries(localeCatalog),
    updateFiles: false,
    missingKeyFn: (_locale: string, value: string) => {
      missingKeys.add(value);
      return value;
    },
  });

  const app = express();
  app.set("views", [fileURLToPath(new URL("views", plugin.meta.url))]);
  templates(app);
  app.set("view engine", "njk");
  const session: Record<string, unknown> = { access_token: "token", scope: "create update delete" };
  app.use(express.urlencoded({ extended: false }));
  app.use((request: Request, response: Response, next: NextFunction) => {
    (request as Request & { session: unknown }).session = session;
    i18n.init(request, response);
    const lang = typeof request.query.lang === "string" ? request.query.lang : "en";
    (request as unknown as { setLocale(locale: string): void }).setLocale(lang);
    request.app.locals.application = {
      ...application,
      url: `http://${request.get("host")}`,
      localeUsed: lang,
      cssPath: "/assets/app.css",
      jsPath: "/assets/app.js",
      navigation: [{ href: plugin.mountPath, text: response.locals.__("blogroll.title") }],
    };
    request.app.locals.publication = { me: "https://website.example" };
    next();
  });
  for (const endpoint of indiekit.endpoints) app.use(endpoint.mountPath, endpoint.routesPublic);
  for (const endpoint of indiekit.endpoints) app.use(endpoint.mountPath, endpoint.routes);
  const renderErrors: string[] = [];
  app.use((error: Error, request: Request, response: Response, _next: NextFunction) => {
    renderErrors.push(`${request.method} ${request.originalUrl}: ${error.message}`);
    response.status(500).type("text/plain").send(`render error: ${error.message}`);
  });

  // A site with two feeds, for the discovery step of "add a blog".
  const site: Server = createServer((request, response) => {
    const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    if (request.url === "/") {
      response.setHeader("Content-Type", "text/html");
      response.end(`<!doctype html><title>Site</title><link rel="alternate" type="application/rss+xml" title="Posts &amp; notes" href="${base}/feed.xml"><link rel="alternate" type="application/atom+xml" title="Comments" href="${base}/atom.xml">`);
    } else {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${plugin.mountPath}`;

  // Data: sources of every type, blogs (one in error, one with owner text to escape), items.
  const storage = await plugin.getStorage();
  const opml = readFileSync(new URL("../test/admin/fixtures/blogroll.opml", import.meta.url), "utf8");
  const opmlUrl = await storage.sources.create({ type: "opml_url", name: "Tom & Jerry <b>list</b>", enabled: true, settings: { url: "https://example.org/list.opml" } });
  const opmlFile = await storage.sources.create({ type: "opml_file", name: "Uploaded", enabled: false, settings: { xml: opml } });
  const feedland = await storage.sources.create({ type: "feedland", name: "FeedLand", enabled: true, settings: { instance: "https://feedland.com", screenName: "davewiner", category: "blogroll" } });
  await storage.sources.create({ type: "manual", name: "Manual", enabled: true, settings: {} });
  const blog = await addBlog(storage, { title: "Tom & Jerry <b>blog</b>", category: "Friends & co", siteUrl: "https://tom.example/", lastFetchAt: new Date() });
  await addItems(storage, blog.id, [item("a", new Date()), item("b", null)]);
  const broken = await addBlog(storage, { title: "Broken" });
  await storage.blogs.recordFetch(broken.id, { at: new Date(), status: "error", error: "HTTP 500 <oops>", nextFetchAt: new Date(Date.now() + 3600_000), failureCount: 1 });
  for (let index = 0; index < 55; index++) await addBlog(storage, { title: `Filler ${String(index).padStart(2, "0")}` });

  const csrf = () => String(session.blogrollCsrf ?? "");
  const get = async (name: string, pathname: string): Promise<Page> => {
    const response = await fetch(base + pathname, { headers: { Accept: "text/html" }, redirect: "manual" });
    return { name, status: response.status, html: await response.text() };
  };
  const post = async (name: string, pathname: string, fields: Record<string, string> | FormData): Promise<Page> => {
    let body: URLSearchParams | FormData;
    if (fields instanceof FormData) {
      body = new FormData();
      body.append("_csrf", csrf());
      for (const [key, value] of fields) body.append(key, value);
    } else {
      body = new URLSearchParams({ _csrf: csrf(), ...fields });
    }
    const response = await fetch(base + pathname, { method: "POST", body, headers: { Accept: "text/html" }, redirect: "manual" });
    return { name, status: response.status, html: await response.text() };
  };

  const pages: Page[] = [];
  pages.push(await get("dashboard", "/"));
  pages.push(await get("dashboard (de)", "/?lang=de"));
  pages.push(await get("dashboard with a success notice", "/?notice=syncStarted"));
  pages.push(await get("dashboard with an error notice", "/?notice=sourceImportFailed"));
  pages.push(await get("clear & resync", "/clear-resync"));
  pages.push(await post("clear & resync, not confirmed", "/clear-resync", {}));
  pages.push(await get("sources", "/sources"));
  pages.push(await get("new source: type", "/sources/new"));
  pages.push(await get("new source: unknown type", "/sources/new?type=nope"));
  for (const type of ["opml_url", "opml_file", "feedland"]) {
    pages.push(await get(`new source: ${type}`, `/sources/new?type=${type}`));
    pages.push(await post(`new source: ${type}, invalid`, "/sources", { type, action: "save", instance: "not a url" }));
  }
  pages.push(await post("new source: opml_file, preview", "/sources", (() => {
    const form = new FormData();
    for (const [key, value] of Object.entries({ type: "opml_file", name: "Preview", action: "preview", enabled: "true", xml: opml })) form.append(key, value);
    return form;
  })()));
  pages.push(await get("edit source: opml_url", `/sources/${opmlUrl.id}/edit`));
  pages.push(await get("edit source: opml_file", `/sources/${opmlFile.id}/edit`));
  pages.push(await get("edit source: feedland", `/sources/${feedland.id}/edit`));
  pages.push(await get("delete source", `/sources/${opmlUrl.id}/delete`));
  pages.push(await post("delete source, no choice", `/sources/${opmlUrl.id}/delete`, {}));
  pages.push(await get("blogs", "/blogs"));
  pages.push(await get("blogs, page 2, filtered", "/blogs?page=2&status=active&q=Filler"));
  pages.push(await get("blogs, no match", "/blogs?q=zzzz"));
  pages.push(await get("new blog", "/blogs/new"));
  pages.push(await post("new blog, empty", "/blogs", { action: "add" }));
  pages.push(await post("new blog, discovered feeds", "/blogs", { action: "discover", url: siteUrl }));
  pages.push(await get("blog", `/blogs/${blog.id}`));
  pages.push(await get("blog in error", `/blogs/${broken.id}`));
  pages.push(await post("blog, invalid edit", `/blogs/${blog.id}`, { title: "", tags: Array.from({ length: 30 }, (_, index) => `t${index}`).join(","), pinned: "true" }));
  pages.push(await get("delete blog", `/blogs/${blog.id}/delete`));
  pages.push(await get("not found", "/blogs/ffffffffffffffffffffffff"));

  const problems = pages.flatMap((page) => inspect(page, missingKeys));
  for (const page of pages) console.log(`${page.status} ${page.name}`);
  const others = [...missingKeys].filter((key) => !key.startsWith("blogroll."));
  if (others.length) console.log(`\nhost keys not in the frontend's catalog (Indiekit's own catalog provides them): ${others.sort().join(", ")}`);
  if (renderErrors.length) console.log(`\nrender errors:\n  ${renderErrors.join("\n  ")}`);
  if (problems.length) console.log(`\nproblems:\n  ${problems.map((problem) => `${problem.page}: ${problem.message}`).join("\n  ")}`);
  console.log(`\n${pages.length} pages rendered with @indiekit/frontend ${JSON.parse(readFileSync(path.join(frontendRoot, "package.json"), "utf8")).version}; ${problems.length + renderErrors.length} problems`);
  if (process.env.KEEP_HTML) for (const page of pages) writeFileSync(path.join(process.env.KEEP_HTML, `${page.name.replace(/[^\w]+/g, "-")}.html`), page.html);

  server.close();
  site.close();
  await plugin.destroy();
  rmSync(folder, { recursive: true, force: true });
  process.exitCode = problems.length + renderErrors.length > 0 ? 1 : 0;
}

interface I18n {
  configure(options: Record<string, unknown>): void;
  init(request: unknown, response: unknown): void;
}

await main();
