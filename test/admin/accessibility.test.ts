import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { DomUtils, parseDocument } from "htmlparser2";
import { startTestServer, type TestServer } from "../support/server.js";
import { seedEveryAdminPage } from "./every-admin-page.js";
import { logIn, type AdminSession } from "./admin-session.js";

type Element = ReturnType<typeof DomUtils.findAll>[number];

/** Problems a page has against the checks the issue asks for: labels, heading order, one h1, CSRF on posts. */
function problems(html: string): string[] {
  const document = parseDocument(html);
  const found: string[] = [];
  const elements = DomUtils.findAll(() => true, document.children) as Element[];
  const byTag = (...names: string[]) => elements.filter((element) => names.includes(element.name));
  const html$ = byTag("html")[0];
  if (!html$?.attribs.lang) found.push("no lang on <html>");

  const ids = elements.map((element) => element.attribs.id).filter(Boolean);
  for (const id of new Set(ids)) if (ids.filter((other) => other === id).length > 1) found.push(`duplicate id "${id}"`);

  if (html.includes("[object Object]")) found.push("an option object printed as text ([object Object])");
  for (const label of byTag("label", "legend"))
    if (DomUtils.textContent(label).trim() === "")
      found.push(`empty ${label.name}${label.attribs.for ? ` for #${label.attribs.for}` : ""}`);
  const labelled = new Set(byTag("label").map((label) => label.attribs.for));
  for (const control of byTag("input", "select", "textarea")) {
    const type = control.attribs.type ?? "text";
    if (["hidden", "submit", "button"].includes(type)) continue;
    if (!labelled.has(control.attribs.id) && !control.attribs["aria-label"])
      found.push(`unlabelled ${control.name} name="${control.attribs.name}"`);
  }
  for (const described of elements.filter((element) => element.attribs["aria-describedby"])) {
    for (const id of described.attribs["aria-describedby"].split(/\s+/))
      if (!ids.includes(id)) found.push(`aria-describedby points at missing #${id}`);
  }

  const headings = byTag("h1", "h2", "h3", "h4", "h5", "h6").map((heading) => Number(heading.name[1]));
  if (headings.filter((level) => level === 1).length !== 1)
    found.push(`${headings.filter((level) => level === 1).length} h1 elements`);
  headings.forEach((level, index) => {
    if (index > 0 && level > headings[index - 1] + 1)
      found.push(`heading level jumps from h${headings[index - 1]} to h${level}`);
  });
  if (headings[0] !== 1) found.push("the first heading is not the h1");

  for (const form of byTag("form")) {
    if ((form.attribs.method ?? "get").toLowerCase() !== "post") continue;
    const token = DomUtils.findOne(
      (element) => element.name === "input" && element.attribs.name === "_csrf",
      form.children,
    );
    if (!token?.attribs.value) found.push(`POST form to ${form.attribs.action} has no CSRF token`);
  }
  for (const button of byTag("button", "a"))
    if (DomUtils.textContent(button).trim() === "" && !button.attribs["aria-label"]) found.push(`empty ${button.name}`);
  return found;
}

describe("admin pages: labels, heading order, CSRF tokens (every page, standalone host)", () => {
  let server: TestServer;
  let admin: AdminSession;
  const pages: string[] = [];

  before(async () => {
    server = await startTestServer("sqlite");
    admin = await logIn(server);
    pages.push(...(await seedEveryAdminPage(server)));
  });
  after(() => server.close());

  it("every page passes", async () => {
    for (const pathname of pages) {
      const { html } = await admin.page(pathname);
      assert.deepEqual(problems(html), [], pathname);
    }
  });

  it("every page has its title (in <title> and the h1) and, below the dashboard, a breadcrumb to its parent", async () => {
    const mount = server.plugin.mountPath;
    for (const pathname of pages) {
      const { html } = await admin.page(pathname);
      const h1 = /<h1>([^<]+)<\/h1>/.exec(html)?.[1]?.trim() ?? "";
      assert.ok(h1, `${pathname}: an h1`);
      // An error page's title starts with "Error: "; the dashboard's tab says "Admin" (its h1 is the site's name).
      const tab = (/<title>([^<]*)<\/title>/.exec(html)?.[1] ?? "").replace(/^Error: /, "");
      assert.ok(
        tab.startsWith(`${pathname === mount ? "Admin" : h1} - `),
        `${pathname}: <title> "${tab}" starts with "${h1}"`,
      );
      const parent = /<nav class="breadcrumb"[^>]*><a href="([^"]+)">([^<]+)<\/a>/.exec(html);
      if (pathname === mount) assert.equal(parent, null, "the dashboard is the top");
      else {
        assert.ok(parent, `${pathname}: a breadcrumb`);
        assert.ok(
          parent[1] === mount || (pathname.startsWith(parent[1]) && parent[1].startsWith(mount)),
          `${pathname}: breadcrumb to ${parent[1]}`,
        );
      }
    }
  });

  it("pages re-rendered with errors pass too", async () => {
    const mount = server.plugin.mountPath;
    const invalid = [
      await admin.post(`${mount}/sources`, {
        type: "feedland",
        name: "",
        instance: "x",
        screenName: "",
        action: "save",
      }),
      await admin.post(`${mount}/blogs`, { url: "", action: "discover" }),
      await admin.post(`${mount}/clear-resync`, {}),
    ];
    for (const response of invalid) {
      assert.equal(response.status, 422);
      assert.deepEqual(problems(response.html), []);
    }
  });

  it("the checker itself finds what it looks for", () => {
    const bad = `<html><body><h2>x</h2><h1>t</h1><h4>y</h4><form method="post" action="/p"><input name="q" id="q"><input type="checkbox" id="c"><label for="c"></label><legend>[object Object]</legend></form></body></html>`;
    const found = problems(bad);
    assert.ok(found.includes("no lang on <html>"));
    assert.ok(found.includes('unlabelled input name="q"'));
    assert.ok(found.includes("heading level jumps from h1 to h4"));
    assert.ok(found.includes("POST form to /p has no CSRF token"));
    assert.ok(found.includes("empty label for #c"));
    assert.ok(found.includes("an option object printed as text ([object Object])"));
  });
});
