// Public entry of the config module: load a config file, check live readiness, read credentials.
export {
  loadConfig,
  loadConfigDocument,
  parseConfigText,
  parseConfigDocument,
  configProblemLines,
  ConfigProblemsError,
} from './load.ts';
export type { LoadedConfig } from './load.ts';
export {
  requireLiveReady,
  requireCredentials,
  readCredentials,
  missingCredentialVariables,
  credentialVariables,
  secretValues,
} from './credentials.ts';
export type { Credentials, LiveFlags } from './credentials.ts';
export { checkConfigFiles } from './check-files.ts';
export { summarizeConfig } from './summary.ts';
export { configJsonSchema } from './json-schema.ts';
export { cancelOnSignal, backtestData } from './derived.ts';
export type { Env } from './interpolate.ts';
export * from './schema.ts';
