import { describe, expect, it } from 'vitest';
import {
  missingCredentialVariables,
  parseConfigText,
  readCredentials,
  requireCredentials,
  requireLiveReady,
  secretValues,
} from '../../src/config/index.ts';
import { ConfigError } from '../../src/core/errors.ts';

const STRATS = 'strategies:\n  - id: ema\n    file: strategies/ema-cross.ts\n';
const live = parseConfigText(`mode: live\n${STRATS}`, 'live.yaml', {});
const paper = parseConfigText(STRATS, 'paper.yaml', {});
const custom = parseConfigText(
  `mode: live\n${STRATS}credentials:\n  apiKeyEnv: K\n  secretEnv: S\n  passphraseEnv: P\n`,
  'custom.yaml',
  {},
);
const ENV = {
  CAPIBOT_API_KEY: 'key-123456',
  CAPIBOT_API_SECRET: 'secret-abcdef',
  CAPIBOT_API_PASSPHRASE: 'pass-phrase',
};

function refusal(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('not refused');
}

describe('requireLiveReady', () => {
  it('returns the credentials with mode live, --live and all three variables', () => {
    expect(requireLiveReady(live, ENV, { live: true })).toEqual({
      apiKey: 'key-123456',
      secret: 'secret-abcdef',
      passphrase: 'pass-phrase',
    });
  });

  it('refuses mode live without the --live flag', () => {
    const e = refusal(() => requireLiveReady(live, ENV, {}));
    expect(e.message).toContain('--live');
    expect(e.exitCode).toBe(2);
    expect(refusal(() => requireLiveReady(live, ENV, { live: false })).message).toContain('--live');
  });

  it('refuses --live with a paper config', () => {
    expect(refusal(() => requireLiveReady(paper, ENV, { live: true })).message).toContain('mode: paper');
  });

  it('refuses without credentials, naming the missing variables and no values', () => {
    const e = refusal(() => requireLiveReady(live, { CAPIBOT_API_KEY: 'key-123456' }, { live: true }));
    expect(e.message).toBe(
      'credentials: live mode needs credentials in the environment: CAPIBOT_API_SECRET, CAPIBOT_API_PASSPHRASE are not set',
    );
    expect(e.message).not.toContain('key-123456');
  });

  it('counts an empty variable as missing', () => {
    expect(
      refusal(() => requireLiveReady(live, { ...ENV, CAPIBOT_API_PASSPHRASE: '' }, { live: true })).message,
    ).toContain('CAPIBOT_API_PASSPHRASE is not set');
  });

  it('reads the variables the config names', () => {
    expect(readCredentials(custom, ENV)).toBeUndefined();
    expect(missingCredentialVariables(custom, ENV)).toEqual(['K', 'S', 'P']);
    expect(requireLiveReady(custom, { K: 'kkkk', S: 'ssss', P: 'pppp' }, { live: true })).toEqual({
      apiKey: 'kkkk',
      secret: 'ssss',
      passphrase: 'pppp',
    });
  });
});

describe('credentials helpers', () => {
  it('requireCredentials names its purpose', () => {
    expect(refusal(() => requireCredentials(paper, {}, 'paper venue http')).message).toContain(
      'paper venue http needs credentials',
    );
  });

  it('secretValues lists the three values for the log censor', () => {
    expect(secretValues(readCredentials(paper, ENV))).toEqual(['key-123456', 'secret-abcdef', 'pass-phrase']);
    expect(secretValues(undefined)).toEqual([]);
  });
});

/** The error message refusing `value` at `section.key` (quoted in the YAML). */
function refusedAt(section: string, key: string, value: string): string {
  return refusal(() => parseConfigText(`${STRATS}${section}:\n  ${key}: "${value}"\n`, 'c.yaml', {})).message;
}

describe('credentials never echoed from the config', () => {
  it('refuses a user name or password in exchange.baseUrl without quoting it', () => {
    const e = refusal(() =>
      parseConfigText(`${STRATS}exchange:\n  baseUrl: https://me:pa55w0rdXYZ@example.com\n`, 'u.yaml', {}),
    );
    expect(e.message).toMatch(/^u\.yaml:5:12 exchange\.baseUrl: must not hold a user name or password/);
    expect(e.message).not.toContain('pa55w0rdXYZ');
    expect(e.message).not.toContain('me:');
    // Passwords that make the URL unparsable are never quoted either.
    for (const bad of [
      'https://me:abc/def+ghi==@api.weex.com',
      'https://me:pa#ss@x.com',
      'https://me:pass@host:99999',
    ]) {
      const m = refusedAt('exchange', 'baseUrl', bad);
      expect(m).toMatch(/must not hold a user name or password/);
      expect(m).not.toContain(bad.slice(8, 14));
    }
  });

  it('refuses a key pasted where its variable name belongs, without quoting it', () => {
    const key = 'bc1f2a9e7d4c8b3a6f5e0d9c8b7a6f5e';
    const e = refusal(() => parseConfigText(`${STRATS}credentials:\n  apiKeyEnv: ${key}\n`, 'k.yaml', {}));
    expect(e.message).toMatch(
      /credentials\.apiKeyEnv: looks like a credential, not the name of an environment variable/,
    );
    expect(e.message).not.toContain(key);
    for (const pasted of [
      'BC1F2A9E7D4C8B3A6F5E0D9C8B7A6F5E',
      'bc1f2a9e-7d4c-8b3a-6f5e-0d9c8b7a6f5e',
      'dGhpcyBpcyBhIHNlY3JldCBrZXk9PQ==',
    ]) {
      const m = refusedAt('credentials', 'secretEnv', pasted);
      expect(m).toMatch(
        /credentials\.secretEnv: (looks like a credential|expected an environment variable name)/,
      );
      expect(m).not.toContain(pasted.slice(0, 8));
    }
    // A value that is not a valid name is refused without being quoted, whatever it looks like.
    for (const pasted of ['Tr4d1ng!Pass#77', '9f8e7d6c5b4a', 'sk_live_51H8xYzAbCdEfGhIjKlMn']) {
      const m = refusedAt('credentials', 'passphraseEnv', pasted);
      expect(m).toMatch(
        /credentials\.passphraseEnv: (expected an environment variable name|looks like a credential)/,
      );
      expect(m).not.toContain(pasted);
    }
    // Ordinary names, long ones included, are names.
    for (const name of ['CAPIBOT__API_KEY_2024', '_CAPIBOT_API_SECRET_V2', 'CAPIBOT_API_SECRET_V2_'])
      expect(() =>
        parseConfigText(`${STRATS}credentials:\n  secretEnv: ${name}\n`, 'n.yaml', {}),
      ).not.toThrow();
    expect(() =>
      parseConfigText(
        `${STRATS}credentials:\n  apiKeyEnv: MY_DESK_WEEX_SUBACCOUNT_3_API_KEY\n`,
        'n.yaml',
        {},
      ),
    ).not.toThrow();
  });
});
