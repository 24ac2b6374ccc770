/** An environment variable that holds something other than true or false. */
export class EnvironmentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EnvironmentError";
  }
}

/** "true"/"1" or "false"/"0" (any case); anything else is refused rather than guessed. */
function booleanVariable(name: string, value: string): boolean {
  const text = value.trim().toLowerCase();
  if (text === "true" || text === "1") return true;
  if (text === "false" || text === "0") return false;
  throw new EnvironmentError(`${name} must be true or false, not ${JSON.stringify(value)}`);
}

/**
 * The plugin options the standalone server takes from its environment; they
 * win over the BLOGROLL_CONFIG file. Unset (or empty) variables give nothing.
 */
export function pluginOptionsFromEnvironment(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  if (env.BLOGROLL_DATABASE) options.databasePath = env.BLOGROLL_DATABASE;
  if (env.MONGODB_URL) options.mongodbUrl = env.MONGODB_URL;
  if (env.BLOGROLL_PUBLIC_URL) options.publicUrl = env.BLOGROLL_PUBLIC_URL;
  if (env.BLOGROLL_ALLOW_PRIVATE_NETWORKS) options.allowPrivateNetworks = booleanVariable("BLOGROLL_ALLOW_PRIVATE_NETWORKS", env.BLOGROLL_ALLOW_PRIVATE_NETWORKS);
  return options;
}
