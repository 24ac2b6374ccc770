import { after, before } from "node:test";
import { ADMIN_TOKEN, startTestServer, type TestServer } from "../support/server.js";
import { startFixtureSite, type FixtureSite } from "./fixture-site.js";

/** A logged-in browser stand-in: keeps the session cookie and sends the page's CSRF token with forms. */
export interface AdminSession {
  cookie: string;
  csrf: string;
  /** GET a page with the session; returns status and HTML. */
  page(pathname: string): Promise<{ status: number; html: string; location: string | null }>;
  /** POST a form (urlencoded, or multipart when a FormData is given) with the session and its CSRF token. */
  post(
    pathname: string,
    fields: Record<string, string> | FormData,
    options?: { csrf?: string | null; accept?: string },
  ): Promise<{ status: number; html: string; location: string | null }>;
}

export async function logIn(server: TestServer): Promise<AdminSession> {
  const login = await server.get("/session/login", {
    method: "POST",
    body: new URLSearchParams({ token: ADMIN_TOKEN, redirect: server.plugin.mountPath }),
    redirect: "manual",
  });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
  if (!cookie) throw new Error(`login failed: ${login.status}`);
  const dashboard = await (await server.get(server.plugin.mountPath, { headers: { Cookie: cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(dashboard)?.[1];
  if (!csrf) throw new Error("no CSRF token on the dashboard");
  const read = async (response: Response) => ({
    status: response.status,
    html: await response.text(),
    location: response.headers.get("location"),
  });
  return {
    cookie,
    csrf,
    page: async (pathname) =>
      read(await server.get(pathname, { headers: { Cookie: cookie, Accept: "text/html" }, redirect: "manual" })),
    post: async (pathname, fields, options = {}) => {
      const token = options.csrf === undefined ? csrf : options.csrf;
      let body: URLSearchParams | FormData;
      if (fields instanceof FormData) {
        body = new FormData();
        if (token !== null) body.append("_csrf", token);
        for (const [name, value] of fields) body.append(name, value);
      } else {
        body = new URLSearchParams(token === null ? fields : { _csrf: token, ...fields });
      }
      return read(
        await server.get(pathname, {
          method: "POST",
          body,
          headers: { Cookie: cookie, Accept: options.accept ?? "text/html" },
          redirect: "manual",
        }),
      );
    },
  };
}

/** The ids of the fields the error summary links to, in order. */
export function summaryErrors(html: string): string[] {
  const summary = /<div class="error-summary"[\s\S]*?<\/div>/.exec(html)?.[0] ?? "";
  return [...summary.matchAll(/<a href="#([\w-]+)">/g)].map((match) => match[1]);
}

export interface AdminFixture {
  server: TestServer;
  site: FixtureSite;
  admin: AdminSession;
}

/**
 * For a describe block: before its tests, a SQLite test server, the fixture
 * site and a logged-in session, handed to `take`; all closed after them.
 */
export function useAdminFixture(take: (fixture: AdminFixture) => void): void {
  let fixture: AdminFixture | null = null;
  before(async () => {
    const server = await startTestServer("sqlite");
    const site = await startFixtureSite();
    fixture = { server, site, admin: await logIn(server) };
    take(fixture);
  });
  after(async () => {
    await fixture?.server.close();
    await fixture?.site.close();
  });
}
