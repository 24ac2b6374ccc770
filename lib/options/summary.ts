import { OPTIONS, type BlogrollOptions } from "./table.js";

/**
 * The options as the host may show them (Indiekit's plugin page lists
 * `plugin.options` for anyone signed in): unset ones left out (its summary
 * fails on null), secrets without their credentials.
 */
export function displayedOptions(options: BlogrollOptions): Partial<BlogrollOptions> {
  const shown: Record<string, unknown> = {};
  for (const [name, option] of OPTIONS) {
    const value: unknown = options[name];
    if (value === null || value === undefined) continue;
    shown[name] = option.secret === "credentials" ? withoutCredentials(String(value)) : value;
  }
  return shown as Partial<BlogrollOptions>;
}

/** A URL without its user name and password. */
function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, "$1");
}
