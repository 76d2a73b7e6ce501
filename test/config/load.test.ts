import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigProblemsError,
  configProblemLines,
  loadConfig,
  loadConfigDocument,
  parseConfigText,
  CONFIG_SECTIONS,
} from '../../src/config/index.ts';
import type { Config } from '../../src/config/index.ts';
import { DEFAULT_BASE_URL } from '../../src/exchange/weex/defaults.ts';
import { ConfigError } from '../../src/core/errors.ts';

const MINIMAL = 'strategies:\n  - id: ema\n    file: strategies/ema-cross.ts\n';

function parse(text: string, env: Record<string, string> = {}): Config {
  return parseConfigText(text, 'test.yaml', env);
}

function errorOf(text: string, env: Record<string, string> = {}): ConfigError {
  try {
    parse(text, env);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('accepted');
}

describe('defaults', () => {
  it('fills every section with its documented defaults', () => {
    const c = parse(MINIMAL);
    expect(Object.keys(c).sort()).toEqual([...CONFIG_SECTIONS].sort());
    expect(c.mode).toBe('paper');
    expect(c.exchange).toEqual({
      baseUrl: DEFAULT_BASE_URL,
      locale: 'en-US',
      timeoutMs: 10_000,
      connectTimeoutMs: 5_000,
      readRetries: 3,
      retryBackoffMs: 250,
    });
    expect(c.credentials).toEqual({
      apiKeyEnv: 'CAPIBOT_API_KEY',
      secretEnv: 'CAPIBOT_API_SECRET',
      passphraseEnv: 'CAPIBOT_API_PASSPHRASE',
    });
    expect(c.strategies).toEqual([{ id: 'ema', file: 'strategies/ema-cross.ts', params: {}, enabled: true }]);
    expect(c.risk).toEqual({
      maxOrderNotional: '1000',
      maxPositionNotional: '5000',
      maxOpenOrders: 50,
      maxOrdersPerMinute: 120,
      priceBandBps: '500',
      drawdownReducePct: '5',
      drawdownHaltPct: '10',
    });
    expect(c.budget).toEqual({
      ipWeightPerWindow: 1000,
      uidWeightPerWindow: 1000,
      windowMs: 10_000,
      safetyMargin: 0.9,
      orderRequestsPerSecond: 10,
    });
    expect(c.executor).toEqual({ concurrency: 4, coalesceMs: 0, supersede: true });
    expect(c.paper).toMatchObject({
      venue: 'embedded',
      source: 'live',
      fillModel: 'through',
      makerFee: '0.0002',
      takerFee: '0.0008',
      startingBalance: '10000',
    });
    expect(c.paper.liquidityCap).toBeUndefined();
    expect(c.orders).toEqual({
      clientOidPrefix: 'cb',
      cancelOnStart: false,
      cancelOnExit: false,
      keepProtectivePlans: true,
    });
    expect(c.metrics).toEqual({ enabled: true, host: '127.0.0.1', port: 9464 });
    expect(c.log).toEqual({ level: 'info', pretty: 'auto' });
    expect(c.shutdown).toEqual({ drainDeadlineMs: 10_000, cancelOpenOrders: false });
  });

  it('applies defaults inside a section that is only partly written', () => {
    const c = parse(`${MINIMAL}risk:\n  maxOpenOrders: 7\n`);
    expect(c.risk.maxOpenOrders).toBe(7);
    expect(c.risk.maxOrdersPerMinute).toBe(120);
  });

  it('treats an empty section (`risk:` with nothing) as an error, not as defaults', () => {
    expect(errorOf(`${MINIMAL}risk:\n`).message).toContain('risk: expected a mapping');
  });
});

describe('frozen', () => {
  it('is deeply frozen', () => {
    const c = parse(`${MINIMAL}    params:\n      periods: [5, 20]\n      nested: { a: 1 }\n`);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.risk)).toBe(true);
    expect(Object.isFrozen(c.strategies)).toBe(true);
    expect(Object.isFrozen(c.strategies[0])).toBe(true);
    expect(Object.isFrozen(c.strategies[0]!.params)).toBe(true);
    expect(Object.isFrozen(c.strategies[0]!.params['periods'])).toBe(true);
    expect(() => {
      (c.risk as { maxOpenOrders: number }).maxOpenOrders = 1;
    }).toThrow(TypeError);
  });
});

describe('decimals', () => {
  it('turns YAML numbers and strings into exact decimal strings', () => {
    const c = parse(
      `${MINIMAL}risk:\n  maxOrderNotional: 250.50\n  maxPositionNotional: '1e3'\npaper:\n  makerFee: 0.0001\n  liquidityCap: 0.5\n`,
    );
    expect(c.risk.maxOrderNotional).toBe('250.5');
    expect(c.risk.maxPositionNotional).toBe('1000');
    expect(c.paper.makerFee).toBe('0.0001');
    expect(c.paper.liquidityCap).toBe('0.5');
  });

  it('keeps digits a float would lose', () => {
    const c = parse(
      `${MINIMAL}risk:\n  maxOrderNotional: 0.1234567890123456789012\n  maxPositionNotional: 12345678901234567890123\n`,
    );
    expect(c.risk.maxOrderNotional).toBe('0.1234567890123456789012');
    expect(c.risk.maxPositionNotional).toBe('12345678901234567890123');
  });
});

describe('interpolation', () => {
  const env = { STORE: '/srv/bot.sqlite', PORT: '9999', FLAG: 'false', LEVEL: 'debug', EMPTY: '' };

  it('replaces ${VAR} and ${VAR:-default}', () => {
    const c = parse(
      `${MINIMAL}store:\n  path: \${STORE}\nlog:\n  level: \${NOPE:-warn}\n  file: /var/log/\${LEVEL}.log\n`,
      env,
    );
    expect(c.store.path).toBe('/srv/bot.sqlite');
    expect(c.log.level).toBe('warn');
    expect(c.log.file).toBe('/var/log/debug.log');
  });

  it('types unquoted replacements as YAML would (numbers, booleans); quoted ones stay text', () => {
    const c = parse(
      `${MINIMAL}metrics:\n  port: \${PORT}\n  enabled: \${FLAG}\nstore:\n  path: "\${PORT}"\n`,
      env,
    );
    expect(c.metrics.port).toBe(9999);
    expect(c.metrics.enabled).toBe(false);
    expect(c.store.path).toBe('9999');
  });

  it('an unquoted value that becomes empty counts as not written: the default applies', () => {
    const c = parse(`${MINIMAL}log:\n  file: \${LOG_FILE:-}\n  level: \${EMPTY}\n`, env);
    expect(c.log.file).toBeUndefined();
    expect(c.log.level).toBe('info');
  });

  it('a missing variable names the YAML path and line', () => {
    expect(errorOf(`${MINIMAL}store:\n  path: \${NOT_THERE}\n`, env).message).toBe(
      'test.yaml:5:9 store.path: environment variable NOT_THERE is not set (write ${NOT_THERE:-default} for a fallback)',
    );
  });

  it('never interpolates keys', () => {
    expect(errorOf(`${MINIMAL}\${PORT}: 1\n`, env).message).toContain('unknown key');
  });

  it('does not echo a value that came from a secret-looking variable', () => {
    const err = errorOf(`${MINIMAL}metrics:\n  port: \${MY_TOKEN}\n`, { MY_TOKEN: 's3cr3t-t0ken' });
    expect(err.message).toContain('metrics.port');
    expect(err.message).not.toContain('s3cr3t-t0ken');
  });

  it('allows secret-looking keys in strategy params when they only reference the environment', () => {
    const c = parse(`${MINIMAL}    params:\n      token: \${FEED_TOKEN}\n`, { FEED_TOKEN: 'abc' });
    expect(c.strategies[0]!.params['token']).toBe('abc');
  });
});

describe('errors', () => {
  it('reports every problem in file order, the first as the message', () => {
    let err: ConfigError | undefined;
    try {
      parse(`${MINIMAL}risk:\n  maxOpenOrders: ten\nmode: demo\nexecutor:\n  concurency: 2\n`);
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigProblemsError);
    expect(err!.message).toBe(
      'test.yaml:5:18 risk.maxOpenOrders: expected a positive integer, got "ten" (and 2 more problems)',
    );
    expect(configProblemLines(err!)).toEqual([
      'test.yaml:5:18 risk.maxOpenOrders: expected a positive integer, got "ten"',
      'test.yaml:6:7 mode: expected one of paper, live, got "demo"',
      'test.yaml:8:3 executor.concurency: unknown key (did you mean "concurrency"?)',
    ]);
  });

  it('points at the right line inside lists', () => {
    const text = `strategies:\n  - id: a\n    file: a.ts\n  - id: b\n    file: b.ts\n    enabled: maybe\n`;
    expect(errorOf(text).message).toBe(
      'test.yaml:6:14 strategies[1].enabled: expected true or false, got "maybe"',
    );
  });
});

describe('files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'capibot-config-'));

  it('loads the bundled example config', () => {
    const c = loadConfig(join(import.meta.dirname, '..', '..', 'config', 'example.yaml'), {});
    expect(c.mode).toBe('paper');
    expect(c.paper.source).toBe('recording');
    expect(c.paper.data).toBe('data/binance-btc-eth-20240719-1s.ndjson.gz');
    expect(c.backtest.data).toBe('data/binance-btc-eth-20240719-1s.ndjson.gz');
    expect(c.strategies[0]!.file).toBe('strategies/ema-cross.ts');
  });

  it('loads the live template (validation only; running it needs --live and credentials)', () => {
    const c = loadConfig(join(import.meta.dirname, '..', '..', 'config', 'live.example.yaml'), {});
    expect(c.mode).toBe('live');
  });

  it('names the file in errors and for a missing file', () => {
    const f = join(dir, 'x.yaml');
    writeFileSync(f, `${MINIMAL}risk:\n  maxOpenOrders: 0\n`);
    expect(() => loadConfig(f, {})).toThrow(
      `${f}:5:18 risk.maxOpenOrders: expected a positive integer, got 0`,
    );
    expect(() => loadConfig(join(dir, 'nope.yaml'), {})).toThrow(
      /nope\.yaml: cannot read the config file: no such file/,
    );
  });

  it('locates values after loading (for later checks)', () => {
    const f = join(dir, 'y.yaml');
    writeFileSync(f, MINIMAL);
    expect(loadConfigDocument(f, {}).where(['strategies', 0, 'file'])).toBe(`${f}:3:11 strategies[0].file`);
  });

  it('an empty file needs strategies', () => {
    expect(errorOf('').message).toBe('test.yaml:1:1 strategies: missing (expected a list of strategies)');
  });
});

describe('every inline secret and unset variable at once', () => {
  it('lists them all in file order, the first as the message, without the values', () => {
    const e = errorOf(
      `${MINIMAL}exchange:\n  apiKey: abc123secret\n  secret: xyz789secret\nmetrics:\n  port: \${PORT_A}\n  host: \${HOST_B}\n`,
    );
    expect(e).toBeInstanceOf(ConfigProblemsError);
    const lines = configProblemLines(e);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^test\.yaml:5:11 exchange\.apiKey: a secret-looking value is written inline/);
    expect(lines[1]).toMatch(/^test\.yaml:6:11 exchange\.secret: a secret-looking value is written inline/);
    expect(lines[2]).toMatch(/^test\.yaml:8:9 metrics\.port: environment variable PORT_A is not set/);
    expect(lines[3]).toMatch(/^test\.yaml:9:9 metrics\.host: environment variable HOST_B is not set/);
    expect(e.message).toMatch(/\(and 3 more problems\)$/);
    expect(lines.join('\n')).not.toMatch(/abc123secret|xyz789secret/);
  });
});
