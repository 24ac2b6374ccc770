/**
 * `npm run docs:options`: writes the options tables of docs/configuration.md
 * and the README's short table of the most used options from the descriptors
 * in lib/options/table.ts, between marker comments; the rest of each page is
 * written by hand. test/docs/options-table.test.ts fails when the committed
 * tables differ from what this makes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { expectedValue } from "../lib/options/kinds.js";
import { OPTION_GROUPS, OPTIONS, type OptionDescriptor } from "../lib/options/table.js";

/** Each page with tables made from the descriptors: its generated parts, by the name their markers carry. */
export const GENERATED_PAGES: { file: string; parts: () => Record<string, string> }[] = [
  {
    file: fileURLToPath(new URL("../docs/configuration.md", import.meta.url)),
    parts: () => ({ options: optionsTables(), "option-variables": variablesTable() }),
  },
  {
    file: fileURLToPath(new URL("../README.md", import.meta.url)),
    parts: () => ({ "most-used-options": readmeTable() }),
  },
];

function optionsTables(): string {
  return Object.entries(OPTION_GROUPS)
    .map(([group, { title, ...rest }]) => {
      const intro = "intro" in rest ? `${rest.intro}\n\n` : "";
      const rows = OPTIONS.filter(([, option]) => option.group === group).map(
        ([name, option]) =>
          `| \`${name}\` | ${defaultCell(option)} | ${accepts(option)} | ${cell(option.doc + variableNote(option))} |`,
      );
      return `### ${title}\n\n${intro}| Option | Default | Accepts | Meaning |\n|---|---|---|---|\n${rows.join("\n")}`;
    })
    .join("\n\n");
}

function variablesTable(): string {
  const rows = OPTIONS.filter(([, option]) => option.env !== undefined).map(([name, option]) => {
    const inside = option.envInsideIndiekit
      ? "; read inside Indiekit too, where the plugin's own configuration wins over it"
      : "";
    const written =
      option.kind === "boolean" ? ": `true` or `1`, `false` or `0` (any case); any other value stops the start" : "";
    return `| \`${option.env}\` | ${valueCell(option)} | The \`${name}\` option${inside}${written}. |`;
  });
  return `| Variable | Default | Meaning |\n|---|---|---|\n${rows.join("\n")}`;
}

/** The options a newcomer meets first: those whose descriptor carries a `readme` line. */
function readmeTable(): string {
  const rows = OPTIONS.filter(([, option]) => option.readme !== undefined).map(
    ([name, option]) => `| \`${name}\` | ${defaultCell(option)} | ${cell(option.readme ?? "")} |`,
  );
  return `| Option | Default | What it does |\n|---|---|---|\n${rows.join("\n")}`;
}

function defaultCell(option: OptionDescriptor): string {
  if (option.defaultDoc !== undefined) return cell(option.defaultDoc);
  return valueCell(option);
}

function valueCell(option: OptionDescriptor): string {
  return option.default === null ? "none" : cell(`\`${String(option.default)}\``);
}

function accepts(option: OptionDescriptor): string {
  return cell(expectedValue(option));
}

function variableNote(option: OptionDescriptor): string {
  if (option.env === undefined) return "";
  return option.envInsideIndiekit
    ? ` Also \`${option.env}\`, standalone and inside Indiekit.`
    : ` Standalone also \`${option.env}\`.`;
}

/** A table cell: a `|` inside would end it. */
function cell(text: string): string {
  return text.replaceAll("|", "\\|");
}

/** The page with each marked part replaced by what the table makes. */
export function withGeneratedParts(markdown: string, page: (typeof GENERATED_PAGES)[number]): string {
  let text = markdown;
  for (const [name, content] of Object.entries(page.parts())) {
    const start = `<!-- ${name}: made by npm run docs:options from lib/options/table.ts -->`;
    const end = `<!-- end of ${name} -->`;
    const from = text.indexOf(start);
    const to = text.indexOf(end);
    if (from === -1 || to < from)
      throw new Error(`${path.basename(page.file)} lacks the markers of "${name}": ${start} … ${end}`);
    text = `${text.slice(0, from + start.length)}\n\n${content}\n\n${text.slice(to)}`;
  }
  return text;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const page of GENERATED_PAGES) {
    writeFileSync(page.file, withGeneratedParts(readFileSync(page.file, "utf8"), page));
    console.log(`wrote the options tables of ${path.relative(process.cwd(), page.file)}`);
  }
}
