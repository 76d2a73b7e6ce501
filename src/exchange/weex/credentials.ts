// API credentials from the environment (CAPIBOT_API_KEY, CAPIBOT_API_SECRET, CAPIBOT_API_PASSPHRASE).
// The values live in private fields behind getters: spreading, JSON.stringify (pino), util.inspect
// (console, vitest) and String() all show `[redacted]`, never a value (ARCHITECTURE.md invariant 8).
import { ConfigError } from '../../core/errors.ts';
import type { Credentials } from './signer.ts';

export const CREDENTIAL_ENV = {
  apiKey: 'CAPIBOT_API_KEY',
  secret: 'CAPIBOT_API_SECRET',
  passphrase: 'CAPIBOT_API_PASSPHRASE',
} as const;

const REDACTED = '[redacted]';

export class ApiCredentials implements Credentials {
  readonly #apiKey: string;
  readonly #secret: string;
  readonly #passphrase: string;

  constructor(apiKey: string, secret: string, passphrase: string) {
    if (apiKey === '' || secret === '' || passphrase === '') {
      throw new ConfigError('API key, secret and passphrase must all be non-empty', 'credentials');
    }
    this.#apiKey = apiKey;
    this.#secret = secret;
    this.#passphrase = passphrase;
  }

  get apiKey(): string {
    return this.#apiKey;
  }

  get secret(): string {
    return this.#secret;
  }

  get passphrase(): string {
    return this.#passphrase;
  }

  toJSON(): Record<string, string> {
    return { apiKey: REDACTED, secret: REDACTED, passphrase: REDACTED };
  }

  toString(): string {
    return `ApiCredentials(${REDACTED})`;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.toString();
  }
}

export type EnvLike = Readonly<Record<string, string | undefined>>;

/**
 * Credentials from an env object: undefined when none of the three variables is set; a ConfigError
 * naming the missing variables (never a value) when only some are.
 */
export function credentialsFromEnv(env: EnvLike): ApiCredentials | undefined {
  const apiKey = env[CREDENTIAL_ENV.apiKey] ?? '';
  const secret = env[CREDENTIAL_ENV.secret] ?? '';
  const passphrase = env[CREDENTIAL_ENV.passphrase] ?? '';
  const missing: string[] = [];
  if (apiKey === '') missing.push(CREDENTIAL_ENV.apiKey);
  if (secret === '') missing.push(CREDENTIAL_ENV.secret);
  if (passphrase === '') missing.push(CREDENTIAL_ENV.passphrase);
  if (missing.length === 3) return undefined;
  if (missing.length > 0)
    throw new ConfigError(`incomplete API credentials: ${missing.join(', ')} not set`, 'env');
  return new ApiCredentials(apiKey, secret, passphrase);
}

/** As credentialsFromEnv, but a private call cannot go on without them. */
export function requireCredentialsFromEnv(env: EnvLike): ApiCredentials {
  const c = credentialsFromEnv(env);
  if (c === undefined) {
    throw new ConfigError(
      `this call is signed: set ${CREDENTIAL_ENV.apiKey}, ${CREDENTIAL_ENV.secret} and ${CREDENTIAL_ENV.passphrase}`,
      'env',
    );
  }
  return c;
}
