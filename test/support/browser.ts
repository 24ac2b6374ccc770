import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { packageRoot } from "../../lib/package-root.js";

/** Debian's Chromium, driven by playwright-core (never a downloaded browser). */
export const CHROMIUM = "/usr/bin/chromium";
/** Screenshots of browser tests (git-ignored). */
export const ARTIFACTS = path.join(packageRoot, "test", "artifacts");
/** For `describe(…, { skip })`: false, or why the browser tests cannot run here. */
export const browserSkip = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium) to run the browser tests`;

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Headless Chromium with a throw-away profile; `close` removes the profile too. */
export async function launchBrowser(
  options: {
    locale?: string;
    viewport?: { width: number; height: number };
    javaScriptEnabled?: boolean;
    colorScheme?: "light" | "dark";
  } = {},
): Promise<TestBrowser> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const profile = mkdtempSync(path.join(tmpdir(), "blogroll-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: options.viewport ?? { width: 1100, height: 800 },
    locale: options.locale ?? "en-GB",
    acceptDownloads: true,
    javaScriptEnabled: options.javaScriptEnabled ?? true,
    colorScheme: options.colorScheme ?? "light",
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Logs `page` in to a standalone test server with its admin token, landing on the admin's dashboard. */
export async function logInPage(
  page: Page,
  server: { baseUrl: string; plugin: { mountPath: string } },
  token: string,
): Promise<void> {
  await page.goto(`${server.baseUrl}/session/login`);
  await page.getByLabel("Admin token").fill(token);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.waitForURL(`**${server.plugin.mountPath}`);
}
