import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import compression from "compression";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import nunjucks from "nunjucks";
import type BlogrollEndpoint from "../../index.js";
import type { IndiekitHost } from "../../index.js";
import { packageJson } from "../package-root.js";
import { Authenticator, clientOf, SESSION_COOKIE } from "./auth.js";
import { sameSecret, SESSION_TTL, type LogoutStore } from "./sessions.js";
import { parseUpload } from "./multipart.js";
import { parseTrustProxy, type TrustProxy } from "./trust-proxy.js";
import { pushCallbackLane } from "../push/routes.js";
import { createTranslator, loadCatalogs, negotiateLocale } from "./i18n.js";
import { EVENTS_PATH } from "../live/route.js";

export interface StandaloneHost {
  app: Express;
  /** What the HTTP server calls: push callbacks straight away (see pushCallbackLane), everything else through `app`. */
  listener(request: IncomingMessage, response: ServerResponse): void;
  auth: Authenticator;
  /** The Indiekit-shaped object the plugin was initialised with. */
  indiekit: ReturnType<typeof createIndiekitShim>;
}

export const LOGIN_PATH = "/session/login";
/** The login and logout forms carry a token, a CSRF token and a path: a few hundred bytes. */
const SESSION_FORM_LIMIT = "8kb";
/** Admin forms and the webhook's JSON, after the login: Indiekit's own limit (body-parser's default). */
const ADMIN_BODY_LIMIT = "100kb";

/** The slice of Indiekit's API a plugin sees: endpoints and collections (none here: no host database). */
export function createIndiekitShim(
  application: Record<string, unknown>,
  collections = new Map<string, unknown>(),
  database: IndiekitHost["database"] = null,
) {
  const endpoints: BlogrollEndpoint[] = [];
  application.collections = collections;
  return {
    application,
    config: { application },
    collections,
    database,
    endpoints,
    addEndpoint(endpoint: unknown) {
      endpoints.push(endpoint as BlogrollEndpoint);
    },
    // Like Indiekit without MongoDB: asking for a collection does nothing.
    addCollection(_name: string) {},
  };
}

/**
 * Content-Security-Policy for HTML pages: only this host's own assets, except images. Blog icons and
 * pictures are the blogs' own, on their hosts, many still on plain http: (a browser upgrades them on an
 * https: page, and a failed one shows its letter tile). An image cannot run code, so http: images cost
 * nothing that https: ones do not; proxying them instead would make this server fetch any address a
 * feed names for every visitor.
 */
const CSP =
  "default-src 'self'; img-src 'self' http: https: data:; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** Express's render, with the strict CSP every HTML page gets (JSON and OPML are not documents). */
const renderWithCsp = function (this: Response, ...args: Parameters<Response["render"]>) {
  this.set("Content-Security-Policy", CSP);
  return express.response.render.apply(this, args);
} as Response["render"];

/**
 * An Express app hosting the plugin the way Indiekit does: public routes at
 * the mount path and well-known ones at /.well-known/, then authentication,
 * then the admin routes; views through
 * Nunjucks with a host-compatible layout and component macros; locales with
 * `__()`; assets at `/assets/<plugin id>/`.
 */
export async function createStandaloneApp(
  plugin: BlogrollEndpoint,
  options: {
    adminToken: string;
    /** A host database's collections (tests use an in-memory stand-in); none by default. */
    collections?: Map<string, unknown>;
    /** Express's `trust proxy` (see trust-proxy.ts): off by default. */
    trustProxy?: TrustProxy;
  },
): Promise<StandaloneHost> {
  const application: Record<string, unknown> = {
    name: "Blogroll",
    version: packageJson.version,
    locale: "en",
    themeColor: "#0055ee",
  };
  // First: a token too short to use stops the start before anything is opened.
  const auth = new Authenticator(options.adminToken, logoutsKeptBy(plugin));
  const indiekit = createIndiekitShim(application, options.collections);
  await plugin.init(indiekit);

  const app = express();
  app.disable("x-powered-by");
  // Behind a TLS-terminating proxy this makes `request.secure` (the cookie's Secure flag) and
  // `request.ip` (login throttling) the client's, read from the X-Forwarded-* headers it sets.
  app.set("trust proxy", parseTrustProxy(options.trustProxy ?? false));

  // Like Indiekit: the plugin's files are found in the folder of its main module.
  nunjucks.configure([path.join(plugin.filePath, "views"), path.join(plugin.filePath, "views", "standalone")], {
    autoescape: true,
    express: app,
    noCache: process.env.NODE_ENV === "development",
  });
  app.set("view engine", "njk");

  const catalogs = loadCatalogs(path.join(plugin.filePath, "locales"));
  const locales = [...catalogs.keys()];

  // What every request of one language is given, made once per language: an open live stream keeps
  // its request's for as long as it is open, so a thousand streams would hold a thousand copies.
  const byLocale = new Map<string, { __: ReturnType<typeof createTranslator>; application: object }>();
  const localsFor = (locale: string) => {
    let found = byLocale.get(locale);
    if (!found) {
      const __ = createTranslator(catalogs, locale);
      // The header already names the site ("Blogroll"): its one link says where it goes.
      const navigation = [{ href: plugin.mountPath, text: __("blogroll.home.admin") }];
      found = { __, application: { ...application, locale, navigation } };
      byLocale.set(locale, found);
    }
    return found;
  };
  const assetsPath = `/assets/${plugin.id}`;
  app.use((request: Request, response: Response, next: NextFunction) => {
    response.set("X-Content-Type-Options", "nosniff");
    const locale = negotiateLocale(request.get("Accept-Language"), locales);
    const { __, application: forLocale } = localsFor(locale);
    response.locals.__ = __;
    response.locals.locale = locale;
    response.locals.application = forLocale;
    response.locals.assetsPath = assetsPath;
    response.render = renderWithCsp;
    next();
  });

  // Compressed as Indiekit compresses (its `compression` middleware), but only answers any cache may
  // share (Cache-Control: public): the widget, the API, feeds, assets. They hold no secret, so a
  // compressed length tells an eavesdropper nothing; admin pages hold a CSRF token beside text a
  // link can put there, the pairing BREACH reads through compression.
  const compress = compression({
    filter: (request, response) => isPublicAnswer(response) && compression.filter(request, response),
  });
  // The event stream is never compressed (no-transform): it skips the middleware, whose wrapping of
  // a response would otherwise be held by every open stream for as long as it is open.
  const events = `${plugin.mountPath}${EVENTS_PATH}`;
  app.use((request: Request, response: Response, next: NextFunction) =>
    request.path === events ? next() : compress(request, response, next),
  );
  app.use(`/assets/${plugin.id}`, express.static(path.join(plugin.filePath, "assets"), { maxAge: "1h" }));
  // Pages name their icon; this answers browsers and tools that ask for the classic address anyway
  // (else a 404, or a redirect to the login page for a visitor not signed in).
  app.get("/favicon.ico", (_request, response) => {
    response.set("Cache-Control", "public, max-age=86400").redirect(301, `/assets/${plugin.id}/icon.svg`);
  });
  // Bodies are parsed only where they are read: the session forms here, the admin after the login.
  // Public routes (the API, the push callbacks) never have a body parsed for them: a callback reads
  // its own bytes, under its own limits, to check their signature.
  const sessionForm = express.urlencoded({ extended: false, limit: SESSION_FORM_LIMIT });

  app.get(LOGIN_PATH, (request, response) => {
    response.render("login", {
      title: response.locals.__("blogroll.login.title"),
      redirect: safeRedirect(request.query.redirect, plugin.mountPath),
    });
  });
  app.post(LOGIN_PATH, sessionForm, (request, response) => {
    const token = typeof request.body?.token === "string" ? request.body.token : "";
    const redirect = safeRedirect(request.body?.redirect, plugin.mountPath);
    const outcome = auth.attempt(clientOf(request), token);
    if (outcome !== "ok") {
      if (outcome === "throttled") response.set("Retry-After", String(auth.retryAfter(clientOf(request))));
      const error = response.locals.__(outcome === "throttled" ? "blogroll.login.throttled" : "blogroll.login.invalid");
      response.status(outcome === "throttled" ? 429 : 401).render("login", {
        title: response.locals.__("blogroll.login.title"),
        redirect,
        error,
        errors: { token: error },
      });
      return;
    }
    const { cookie } = auth.createSession();
    // Secure when the request came over https (the cookie then never travels in clear text).
    response.cookie(SESSION_COOKIE, cookie, {
      httpOnly: true,
      sameSite: "lax",
      secure: request.secure,
      path: "/",
      maxAge: SESSION_TTL,
    });
    response.redirect(303, redirect);
  });
  app.post("/session/logout", sessionForm, async (request, response) => {
    const session = await auth.sessionOf(request);
    const csrf = typeof request.body?._csrf === "string" ? request.body._csrf : "";
    if (session && sameSecret(csrf, session.blogrollCsrf)) await auth.endSession(session);
    response.clearCookie(SESSION_COOKIE, { path: "/" });
    response.redirect(303, LOGIN_PATH);
  });
  // The home page is the blogroll page itself.
  app.get("/", plugin.page("page"));

  for (const endpoint of indiekit.endpoints) app.use(endpoint.mountPath, endpoint.routesPublic);
  // Like Indiekit: well-known routes at the server's root, before authentication.
  for (const endpoint of indiekit.endpoints) {
    const wellKnown = endpoint.routesWellKnown;
    if (wellKnown) app.use("/.well-known/", wellKnown);
  }
  // Nothing else lives there: a well-known address never leads to the login.
  app.use("/.well-known/", (_request: Request, response: Response) => {
    response.status(404).json({ error: "Not found" });
  });
  app.use(auth.middleware(LOGIN_PATH));
  // Multipart bodies are read only after the login, and only where the admin takes an upload.
  for (const endpoint of indiekit.endpoints)
    app.post(uploadRoutes(endpoint.mountPath), parseUpload(endpoint.settings.maxBodySize));
  app.use(express.urlencoded({ extended: false, limit: ADMIN_BODY_LIMIT }));
  app.use(express.json({ limit: ADMIN_BODY_LIMIT }));
  // A body that is not valid JSON reaches the routes as no body at all, so
  // each route answers with its own (spec) error rather than a parser's.
  app.use((error: Error & { type?: string }, request: Request, _response: Response, next: NextFunction) => {
    if (error.type !== "entity.parse.failed") return next(error);
    request.body = {};
    next();
  });
  for (const endpoint of indiekit.endpoints) app.use(endpoint.mountPath, endpoint.routes);

  app.use((_request: Request, response: Response) => {
    response.status(404).json({ error: "Not found" });
  });
  // Express's last resort: a body-parser error or a view that failed. Never a stack.
  app.use(
    (error: Error & { status?: number; type?: string }, request: Request, response: Response, _next: NextFunction) => {
      const status = error.status && error.status >= 400 && error.status < 500 ? error.status : 500;
      if (status === 500) plugin.context.log.error(`${request.method} ${request.originalUrl} failed`, error);
      if (!response.headersSent)
        response.status(status).json({ error: status === 500 ? "Internal server error" : "Bad request" });
    },
  );

  const lanes = indiekit.endpoints.map((endpoint) =>
    pushCallbackLane(endpoint.context, endpoint.mountPath, app.get("trust proxy fn")),
  );
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    if (!lanes.some((lane) => lane(request, response))) app(request, response);
  };
  return { app, auth, indiekit, listener };
}

/** Logouts are remembered in the plugin's own storage (a meta record), so they hold across restarts. */
function logoutsKeptBy(plugin: BlogrollEndpoint): LogoutStore {
  const KEY = "standaloneLogouts";
  return {
    read: async () => (await plugin.getStorage()).meta.get(KEY),
    write: async (logouts) => (await plugin.getStorage()).meta.set(KEY, logouts),
  };
}

/** True when any cache may keep the answer (Cache-Control names `public`). */
function isPublicAnswer(response: Response): boolean {
  return /(?:^|,)\s*public\s*(?:,|$)/i.test(String(response.getHeader("Cache-Control") ?? ""));
}

/** The admin routes whose form carries a file: the source form (new and edit). */
function uploadRoutes(mountPath: string): string[] {
  const base = mountPath === "/" ? "" : mountPath;
  return [`${base}/sources`, `${base}/sources/:id`];
}

/** Only same-site paths: a login form must not become an open redirect. */
function safeRedirect(value: unknown, fallback: string): string {
  return typeof value === "string" && value.startsWith("/") && !value.startsWith("//") && !value.includes("\\")
    ? value
    : fallback;
}
