// Credentials never reach the log output: written through the real pino stream into a buffer, with
// redaction paths and the literal-value censor, in JSON and in pretty mode.
import { mkdtempSync, readFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signedHeaders } from '../../src/exchange/weex/signer.ts';
import {
  REDACTED,
  censorSecrets,
  componentLogger,
  createRootLogger,
  orderLogger,
  strategyLogger,
} from '../../src/obs/logger.ts';
import type { RootLoggerOptions } from '../../src/obs/logger.ts';

const CREDS = {
  apiKey: 'bg_key_7a1c9e5f3b',
  secret: 'sk-Zx9!q"w\\e/rty-SECRET',
  passphrase: 'pass phrase 42',
};
const SECRETS = [CREDS.apiKey, CREDS.secret, CREDS.passphrase];

function capture(opts: RootLoggerOptions = {}) {
  const chunks: string[] = [];
  const root = createRootLogger({
    secrets: SECRETS,
    destination: { write: (s: string) => void chunks.push(s) },
    ...opts,
  });
  return { root, log: root.logger, text: () => chunks.join('') };
}

function assertClean(text: string): void {
  for (const s of SECRETS) {
    expect(text).not.toContain(s);
    expect(text).not.toContain(JSON.stringify(s).slice(1, -1));
  }
}

function logEverything(log: ReturnType<typeof capture>['log']): void {
  const headers = signedHeaders(CREDS, {
    timestamp: '1721347200000',
    method: 'POST',
    path: '/capi/v2/order/placeOrder',
    query: '',
    body: '{}',
  });
  log.info({ headers }, 'request');
  log.info({ req: { headers, url: '/capi/v2/order/placeOrder' } }, 'nested request');
  log.info({ options: { request: { headers } } }, 'deeper request');
  log.info({ credentials: CREDS }, 'credentials object');
  log.info({ apiKey: CREDS.apiKey, secret: CREDS.secret, passphrase: CREDS.passphrase }, 'fields');
  log.info(
    { client: { apiKey: CREDS.apiKey, secret: CREDS.secret, passphrase: CREDS.passphrase } },
    'nested fields',
  );
  log.info({ authorization: `Bearer ${CREDS.apiKey}` }, 'authorization');
  log.warn(`message mentioning ${CREDS.secret} and ${CREDS.passphrase}`);
  log.error({ err: new Error(`request failed for key ${CREDS.apiKey} secret ${CREDS.secret}`) }, 'failure');
  log.info(
    { url: `https://x.test/?k=${encodeURIComponent(CREDS.apiKey)}`, note: `p=${CREDS.passphrase}` },
    'urls',
  );
  log.info({ list: [CREDS.secret, { deep: { deeper: CREDS.passphrase } }] }, 'anywhere');
}

describe('logger redaction', () => {
  it('JSON output never contains the key, secret or passphrase', () => {
    const { log, text } = capture();
    logEverything(log);
    logEverything(componentLogger(log, 'executor'));
    const out = text();
    assertClean(out);
    expect(out).toContain(REDACTED);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBe(22);
    const first = lines[0] as { headers: Record<string, string> };
    expect(first.headers['ACCESS-KEY']).toBe(REDACTED);
    expect(first.headers['ACCESS-SIGN']).toBe(REDACTED);
    expect(first.headers['ACCESS-PASSPHRASE']).toBe(REDACTED);
    expect(first.headers['ACCESS-TIMESTAMP']).toBe('1721347200000');
  });

  it('pretty output never contains them either', () => {
    const { log, text } = capture({ pretty: true });
    logEverything(log);
    const out = text();
    assertClean(out);
    expect(out).toContain('request');
    expect(() => JSON.parse(out.split('\n')[0]!)).toThrow();
  });

  it('censors secrets added after creation', () => {
    const chunks: string[] = [];
    const root = createRootLogger({ destination: { write: (s: string) => void chunks.push(s) } });
    root.addSecrets(['late-secret-value']);
    root.logger.info('has late-secret-value in it');
    expect(chunks.join('')).not.toContain('late-secret-value');
  });

  it('censorSecrets ignores very short values (they would blank ordinary text)', () => {
    expect(censorSecrets('a 12 b', ['12'])).toBe('a 12 b');
    expect(censorSecrets('a 1234 b 1234', ['1234'])).toBe(`a ${REDACTED} b ${REDACTED}`);
  });
});

describe('child loggers', () => {
  it('carry component, strategy and clientOid', () => {
    const { log, text } = capture();
    orderLogger(strategyLogger(componentLogger(log, 'executor'), 'ema'), 'cb-ema-42').info('placed');
    const line = JSON.parse(text()) as Record<string, unknown>;
    expect(line).toMatchObject({
      component: 'executor',
      strategy: 'ema',
      clientOid: 'cb-ema-42',
      msg: 'placed',
      level: 30,
    });
    expect(typeof line['time']).toBe('string');
  });

  it('honours the level', () => {
    const { log, text } = capture({ level: 'warn' });
    log.info('hidden');
    log.warn('shown');
    expect(text()).not.toContain('hidden');
    expect(text()).toContain('shown');
  });
});

describe('log file', () => {
  it('appends JSON lines to the file and reopens it after rotation', () => {
    const dir = mkdtempSync(join(tmpdir(), 'capibot-log-'));
    const file = join(dir, 'sub', 'capibot.log');
    const root = createRootLogger({ file, secrets: SECRETS, isTty: true });
    root.logger.info({ secret: CREDS.secret }, `first ${CREDS.apiKey}`);
    root.flush();
    renameSync(file, `${file}.1`);
    root.reopen();
    root.logger.info('second');
    root.flush();
    const rotated = readFileSync(`${file}.1`, 'utf8');
    const current = readFileSync(file, 'utf8');
    expect(JSON.parse(rotated)).toMatchObject({ msg: `first ${REDACTED}`, secret: REDACTED });
    expect(JSON.parse(current)).toMatchObject({ msg: 'second' });
    assertClean(rotated + current);
  });
});
