/**
 * Plugin options. Each one is a descriptor in `options/table.ts`; the type,
 * the defaults, validation, the host's summary and the environment
 * variables are made from those descriptors in `options/`.
 */
export {
  OPTION_GROUPS,
  OPTIONS,
  type BlogrollOptions,
  type OptionDescriptor,
  type OptionName,
} from "./options/table.js";
export { defaultOptions, OptionsError, resolveOptions } from "./options/resolve.js";
export { displayedOptions } from "./options/summary.js";
export { EnvironmentError, hostEnvironmentDefaults, optionsFromEnvironment } from "./options/environment.js";
