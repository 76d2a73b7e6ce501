// Credentials come only from the environment. A config file that writes a secret-looking value
// inline (a key named like key/secret/passphrase/password/token with a literal value) is refused
// before anything else is checked, and the value itself is never echoed in the error.

// Matched against the key lower-cased with `_` and `-` removed: apiKey, api_key, ACCESS-KEY,
// secretKey, apiSecret, passphrase, password, passwd, token, accessToken, authorization ...
const SECRET_KEY = /(key|secret|passphrase|password|passwd|token|authorization)$/;

export function isSecretLookingKey(key: string): boolean {
  return SECRET_KEY.test(key.toLowerCase().replace(/[_-]/g, ''));
}

/** The message for a secret written inline at `displayPath`. */
export function inlineSecretMessage(displayPath: string): string {
  const hint = displayPath.startsWith('credentials.')
    ? 'set CAPIBOT_API_KEY, CAPIBOT_API_SECRET and CAPIBOT_API_PASSPHRASE, or name other variables in credentials.apiKeyEnv / secretEnv / passphraseEnv'
    : 'put it in an environment variable and write ${VARIABLE} here';
  return `a secret-looking value is written inline; secrets are read only from the environment (${hint})`;
}
