// Credentials are read from the environment only (the config names the variables), at the moment a
// component needs them. Error messages name the variables, never their values.
import { ConfigError } from '../core/errors.ts';
import type { Credentials } from '../exchange/weex/signer.ts';
import type { Env } from './interpolate.ts';
import type { Config } from './schema.ts';

export type { Credentials };

/** The environment variable names the config points at, in apiKey/secret/passphrase order. */
export function credentialVariables(config: Config): readonly [string, string, string] {
  const c = config.credentials;
  return [c.apiKeyEnv, c.secretEnv, c.passphraseEnv];
}

/** Names of the credential variables that are unset or empty. */
export function missingCredentialVariables(config: Config, env: Env): string[] {
  return credentialVariables(config).filter((name) => (env[name] ?? '') === '');
}

/** The credentials when all three variables are set, else undefined. */
export function readCredentials(config: Config, env: Env): Credentials | undefined {
  const [k, s, p] = credentialVariables(config);
  const apiKey = env[k];
  const secret = env[s];
  const passphrase = env[p];
  if (!apiKey || !secret || !passphrase) return undefined;
  return { apiKey, secret, passphrase };
}

/** The credentials, or a ConfigError naming the missing variables; `purpose` says who needs them. */
export function requireCredentials(config: Config, env: Env, purpose: string): Credentials {
  const creds = readCredentials(config, env);
  if (creds) return creds;
  const missing = missingCredentialVariables(config, env);
  throw new ConfigError(
    `${purpose} needs credentials in the environment: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set`,
    'credentials',
  );
}

export interface LiveFlags {
  /** The explicit `--live` command-line flag. */
  readonly live?: boolean | undefined;
}

/**
 * The live-mode safety catch. Trading real money needs both `mode: live` in the config and the
 * `--live` flag on the command line, plus the three credentials in the environment. Returns the
 * credentials; throws ConfigError (exit 2) otherwise. Also refuses `--live` with a paper config, so
 * that a flag typed by habit never silently means something else.
 */
export function requireLiveReady(config: Config, env: Env, flags: LiveFlags): Credentials {
  if (config.mode !== 'live') {
    throw new ConfigError(
      flags.live === true
        ? 'the --live flag was given but the config says mode: paper (set mode: live to trade real money)'
        : 'the config says mode: paper, not live',
      'mode',
    );
  }
  if (flags.live !== true) {
    throw new ConfigError(
      'the config says mode: live; add the --live flag to confirm trading real money',
      'mode',
    );
  }
  return requireCredentials(config, env, 'live mode');
}

/** The literal secret values, for the logger's last-resort censor (src/obs/logger.ts). */
export function secretValues(creds: Credentials | undefined): readonly string[] {
  return creds ? [creds.apiKey, creds.secret, creds.passphrase] : [];
}
