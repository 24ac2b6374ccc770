/**
 * Just enough Markdown reading to check the docs: the links a page makes and
 * the anchors its headings get, as GitHub renders them. Fenced code blocks and
 * inline code are skipped (a `# comment` in a shell example is no heading, a
 * `[x](y)` in code is no link).
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

export interface Link {
  /** The target as written: `docs/api.md#errors`, `#usage`, `images/a.png`. */
  target: string;
  line: number;
}

/** The page's lines, with fenced code blocks blanked (line numbers kept). */
function proseLines(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split("\n").map((line) => {
    const opening = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && opening) {
      fence = opening;
      return "";
    }
    if (fence !== null) {
      if (line.trim().startsWith(fence)) fence = null;
      return "";
    }
    return line;
  });
}

function withoutInlineCode(line: string): string {
  return line.replace(/(`+)[^`]*?\1/g, "");
}

/** Every inline link and image of the page: `[text](target)`, `![alt](target "title")`. */
export function linksOf(markdown: string): Link[] {
  const links: Link[] = [];
  proseLines(markdown).forEach((line, index) => {
    for (const match of withoutInlineCode(line).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ target: match[1], line: index + 1 });
    }
  });
  return links;
}

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/`/g, "")
    .replace(/<[^>]+>/g, "")
    .replace(/\*/g, "");
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a page's headings; a repeated heading gets `-1`, `-2`, … as on GitHub. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/**
 * What is wrong with the relative links of one page: a file that does not
 * exist, or an anchor no heading of the target page has. Links with a scheme
 * (`https:`, `mailto:`) are not checked.
 */
export function brokenLinks(file: string): string[] {
  const markdown = readFileSync(file, "utf8");
  const problems: string[] = [];
  for (const { target, line } of linksOf(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
    const where = `${file}:${line}: ${target}`;
    const hash = target.indexOf("#");
    const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const fragment = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
    const resolved = pathPart === "" ? file : path.resolve(path.dirname(file), pathPart);
    if (!existsSync(resolved)) {
      problems.push(`${where}: no such file`);
      continue;
    }
    if (fragment === null) continue;
    if (!resolved.endsWith(".md")) {
      problems.push(`${where}: an anchor into a file that is not Markdown`);
      continue;
    }
    if (!anchorsOf(readFileSync(resolved, "utf8")).has(fragment))
      problems.push(`${where}: no heading with that anchor`);
  }
  return problems;
}
