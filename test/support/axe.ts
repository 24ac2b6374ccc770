import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

/** axe-core, the standard accessibility engine, injected into the page under test. */
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** WCAG 2.0 and 2.1, levels A and AA, and axe's best practices (landmarks, headings, regions). */
export const AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"];

/**
 * axe-core's violations on the page as it is now, one line each: the rule,
 * its help text and the first elements it found (their selectors). An empty
 * list means none. `include` (selectors) limits the check to parts of the
 * page: a widget inside someone else's page.
 */
export async function axeViolations(
  page: Page,
  options: { include?: string[]; tags?: string[] } = {},
): Promise<string[]> {
  const spec = JSON.stringify({
    context: options.include ? { include: options.include } : null,
    tags: options.tags ?? AXE_TAGS,
  });
  const result = (await page.evaluate(`${AXE}
    (() => {
      const spec = ${spec};
      return axe.run(spec.context ?? document, { runOnly: { type: "tag", values: spec.tags }, resultTypes: ["violations"] });
    })()`)) as {
    violations: Array<{ id: string; help: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> }>;
  };
  return result.violations.map((violation) => {
    const where = violation.nodes
      .slice(0, 3)
      .map((node) => node.target.join(" "))
      .join(", ");
    return `${violation.id} (${violation.help}): ${violation.nodes.length} × ${where}`;
  });
}
