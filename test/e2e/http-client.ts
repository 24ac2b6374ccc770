/**
 * A site owner's browser reduced to what the end-to-end suite needs: a
 * cookie jar (Indiekit keeps its session in signed cookies that change as the
 * session does), the CSRF token of the page last read, and form posts.
 */
export interface Page {
  status: number;
  html: string;
  location: string | null;
  headers: Headers;
}

export class Browser {
  private readonly cookies = new Map<string, string>();
  csrf: string | null = null;

  constructor(readonly base: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  private keep(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const index = pair.indexOf("=");
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (value === "" || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async request(pathname: string, init: RequestInit = {}): Promise<Page> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("Cookie", this.cookieHeader());
    if (!headers.has("Accept")) headers.set("Accept", "text/html");
    const response = await fetch(new URL(pathname, this.base), { ...init, headers, redirect: "manual" });
    this.keep(response);
    const html = await response.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    if (token) this.csrf = token;
    return { status: response.status, html, location: response.headers.get("location"), headers: response.headers };
  }

  page(pathname: string): Promise<Page> {
    return this.request(pathname);
  }

  /** Posts a form as the page would: urlencoded, or multipart when given FormData; with the page's CSRF token. */
  post(
    pathname: string,
    fields: Record<string, string> | FormData,
    options: { accept?: string; csrf?: string | null } = {},
  ): Promise<Page> {
    const token = options.csrf === undefined ? this.csrf : options.csrf;
    let body: URLSearchParams | FormData;
    if (fields instanceof FormData) {
      body = new FormData();
      if (token) body.append("_csrf", token);
      for (const [name, value] of fields) body.append(name, value);
    } else {
      body = new URLSearchParams(token ? { _csrf: token, ...fields } : fields);
    }
    return this.request(pathname, { method: "POST", body, headers: { Accept: options.accept ?? "text/html" } });
  }
}

/** Every leaf key of a catalog, dotted ("blogroll.sources.title"). */
export function catalogKeys(node: unknown, prefix = ""): string[] {
  if (typeof node !== "object" || node === null) return [prefix];
  return Object.entries(node).flatMap(([key, child]) => catalogKeys(child, prefix ? `${prefix}.${key}` : key));
}

/** What would tell a site owner the page is broken: render errors, raw keys, an empty error banner. */
export function pageProblems(html: string, keys: string[], options: { errorsExpected?: boolean } = {}): string[] {
  const problems: string[] = [];
  const text = html.replace(/<(script|style)[\s\S]*?<\/\1>/g, "");
  for (const marker of [
    "template not found",
    "[object Object]",
    "Template render error",
    "undefined</",
    ">undefined<",
    ">null<",
  ]) {
    if (text.includes(marker)) problems.push(`contains ${JSON.stringify(marker)}`);
  }
  // A key shown raw, whole or as the parent of a plural object, with no translation around it.
  const raw = new Set(keys.flatMap((key) => [key, key.replace(/\.(zero|one|two|few|many|other)$/, "")]));
  for (const match of text.matchAll(/[>"\s]((?:blogroll|status|plugin|errors?)\.[\w.-]+\w)[<"\s]/g)) {
    if (raw.has(match[1])) problems.push(`untranslated key ${match[1]}`);
  }
  if (!options.errorsExpected && /class="error-summary/.test(text)) problems.push("an error summary is shown");
  return problems;
}
