import { acceptsValue, expectedValue, KINDS } from "./kinds.js";
import { OPTIONS, type BlogrollOptions, type OptionDescriptor } from "./table.js";

export class OptionsError extends Error {
  constructor(message: string) {
    super(`indiekit-endpoint-blogroll: ${message}`);
    this.name = "OptionsError";
  }
}

/** Every option at its default. */
export const defaultOptions: BlogrollOptions = Object.fromEntries(
  OPTIONS.map(([name, option]) => [name, option.default]),
) as BlogrollOptions;

/** Merges user options over the defaults and throws an OptionsError on anything invalid. */
export function resolveOptions(input: unknown = {}): BlogrollOptions {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new OptionsError("options must be an object");
  }
  const given = input as Record<string, unknown>;
  const resolved: Record<string, unknown> = {};
  for (const [name, option] of OPTIONS) {
    // Unknown keys are ignored; an option given as undefined takes its default.
    const value = Object.hasOwn(given, name) && given[name] !== undefined ? given[name] : option.default;
    resolved[name] = checked(name, option, value);
  }
  const options = resolved as BlogrollOptions;
  if (options.maxFetchInterval < options.minFetchInterval) {
    throw new OptionsError(
      `option "maxFetchInterval" must be at least minFetchInterval (${options.minFetchInterval}) (got ${options.maxFetchInterval})`,
    );
  }
  return options;
}

/** The value as the option resolves it, or an OptionsError saying what it must be (a secret's value left out). */
function checked(name: string, option: OptionDescriptor, value: unknown): unknown {
  if (value === null && option.default === null) return null;
  if (!acceptsValue(option, value)) {
    const got = option.secret ? "" : ` (got ${JSON.stringify(value)})`;
    throw new OptionsError(`option "${name}" must be ${expectedValue(option)}${got}`);
  }
  const { normalise } = KINDS[option.kind];
  return normalise ? normalise(value as never) : value;
}
