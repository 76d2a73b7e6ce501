import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { credentialsFromEnv, requireCredentialsFromEnv } from '../../../src/exchange/weex/credentials.ts';

const ENV = {
  CAPIBOT_API_KEY: 'key-AAAA',
  CAPIBOT_API_SECRET: 'secret-BBBB',
  CAPIBOT_API_PASSPHRASE: 'pass-CCCC',
};

describe('credentials', () => {
  it('reads the three variables', () => {
    const c = credentialsFromEnv(ENV);
    expect(c?.apiKey).toBe('key-AAAA');
    expect(c?.secret).toBe('secret-BBBB');
    expect(c?.passphrase).toBe('pass-CCCC');
  });

  it('never prints a value: JSON, inspect, template strings, spreading', () => {
    const c = requireCredentialsFromEnv(ENV);
    const texts = [
      JSON.stringify(c),
      JSON.stringify({ nested: c }),
      inspect(c),
      inspect({ c }),
      `${String(c)}`,
      JSON.stringify({ ...c }),
    ];
    for (const t of texts) {
      for (const v of Object.values(ENV)) expect(t).not.toContain(v);
    }
    expect(JSON.stringify(c)).toContain('[redacted]');
  });

  it('none set → undefined (public calls); some set → ConfigError naming what is missing, not values', () => {
    expect(credentialsFromEnv({})).toBeUndefined();
    expect(() => requireCredentialsFromEnv({})).toThrow(ConfigError);
    try {
      credentialsFromEnv({ CAPIBOT_API_KEY: 'key-AAAA', CAPIBOT_API_SECRET: '' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as Error).message).toContain('CAPIBOT_API_SECRET');
      expect((err as Error).message).toContain('CAPIBOT_API_PASSPHRASE');
      expect((err as Error).message).not.toContain('key-AAAA');
      expect((err as ConfigError).exitCode).toBe(2);
    }
  });
});
