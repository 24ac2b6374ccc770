import { expectedValue, KINDS } from "./kinds.js";
import { OPTIONS } from "./table.js";

type Environment = Record<string, string | undefined>;

/** An environment variable that holds no value of its option's kind. */
export class EnvironmentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EnvironmentError";
  }
}

/**
 * The options the standalone server takes from its environment (each
 * descriptor's `env`); they win over the BLOGROLL_CONFIG file. Unset or
 * empty variables give nothing. A boolean is `true`/`1` or `false`/`0` (any
 * case), anything else an EnvironmentError; other values are checked with
 * the options.
 */
export function optionsFromEnvironment(env: Environment): Record<string, unknown> {
  return read(env, () => true);
}

/**
 * The variables read inside Indiekit too (`envInsideIndiekit`): defaults
 * that the host's configuration of the plugin overrides.
 */
export function hostEnvironmentDefaults(env: Environment): Record<string, unknown> {
  return read(env, (insideIndiekit) => insideIndiekit);
}

function read(env: Environment, wanted: (insideIndiekit: boolean) => boolean): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  for (const [name, option] of OPTIONS) {
    if (option.env === undefined || !wanted(option.envInsideIndiekit === true)) continue;
    const text = env[option.env];
    if (!text) continue;
    const kind = KINDS[option.kind];
    const value = kind.fromText ? kind.fromText(text) : text;
    if (value === undefined) {
      const given = option.secret ? "" : `, not ${JSON.stringify(text)}`;
      throw new EnvironmentError(`${option.env} must be ${expectedValue(option)}${given}`);
    }
    options[name] = value;
  }
  return options;
}
