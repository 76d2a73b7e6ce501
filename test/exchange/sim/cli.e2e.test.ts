// `capibot sim` as a child process: prints its address, answers signed requests with the test
// credentials (or the ones from the environment), stops on SIGTERM with exit 0.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { SIM_TEST_CREDENTIALS } from '../../../src/exchange/sim/test-credentials.ts';
import { raw, signed } from './helpers.ts';

const FIXTURE = 'test/fixtures/recordings/sim-small.ndjson';

interface Running {
  readonly child: ChildProcess;
  readonly url: string;
  readonly stderr: () => string;
  readonly stdoutLines: string[];
}

async function startCli(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Running> {
  const clean = { ...process.env };
  delete clean['CAPIBOT_API_KEY'];
  delete clean['CAPIBOT_API_SECRET'];
  delete clean['CAPIBOT_API_PASSPHRASE'];
  const child = spawn(
    process.execPath,
    ['bin/capibot.js', 'sim', '--data', FIXTURE, '--port', '0', ...args],
    {
      env: { ...clean, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const lines: string[] = [];
  const rl = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    rl.on('line', (line) => {
      lines.push(line);
      const m = /^sim listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line);
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`sim exited early (${code}): ${err}`)));
  });
  return { child, url, stderr: () => err, stdoutLines: lines };
}

async function stop(r: Running, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  const exited = once(r.child, 'exit');
  r.child.kill(signal);
  const [code] = (await exited) as [number | null];
  return code;
}

describe('capibot sim (child process)', () => {
  it('serves the recording with the test credentials and stops on SIGTERM with exit 0', async () => {
    const r = await startCli(['--seed', '4']);
    try {
      expect(r.stderr()).toContain(`key=${SIM_TEST_CREDENTIALS.apiKey}`);
      const tickers = await raw(r.url, 'GET', '/capi/v2/market/tickers');
      expect(tickers.status).toBe(200);
      expect((tickers.json as { symbol: string }[]).map((t) => t.symbol)).toEqual([
        'cmt_btcusdt',
        'cmt_ethusdt',
      ]);
      const time = (await raw(r.url, 'GET', '/capi/v2/market/time')).json as { timestamp: number };
      const placed = await signed(r.url, {
        method: 'POST',
        path: '/capi/v2/order/placeOrder',
        body: {
          symbol: 'cmt_btcusdt',
          client_oid: 'e2e-1',
          size: '0.001',
          type: '1',
          order_type: '0',
          match_price: '1',
        },
        ts: time.timestamp,
        creds: SIM_TEST_CREDENTIALS,
      });
      expect(placed.status).toBe(200);
      expect(placed.json).toMatchObject({ client_oid: 'e2e-1' });
      const fills = await signed(r.url, {
        method: 'GET',
        path: '/capi/v2/order/fills',
        ts: time.timestamp,
        creds: SIM_TEST_CREDENTIALS,
      });
      expect(fills.text).toMatch(/"tradeId":\d{18}/);
    } finally {
      expect(await stop(r)).toBe(0);
    }
    expect(r.stdoutLines).toEqual([`sim listening on ${r.url}`]);
    expect(r.stderr()).toContain('sim stopping');
  });

  it('takes credentials from the environment and never logs them; SIGINT stops it too', async () => {
    const creds = {
      CAPIBOT_API_KEY: 'env-key-1234',
      CAPIBOT_API_SECRET: 'env-secret-5678',
      CAPIBOT_API_PASSPHRASE: 'env-pass-9012',
    };
    const r = await startCli(['--log-level', 'debug'], creds);
    try {
      const time = (await raw(r.url, 'GET', '/capi/v2/market/time')).json as { timestamp: number };
      const ok = await signed(r.url, {
        method: 'GET',
        path: '/capi/v2/order/history',
        ts: time.timestamp,
        creds: {
          apiKey: creds.CAPIBOT_API_KEY,
          secret: creds.CAPIBOT_API_SECRET,
          passphrase: creds.CAPIBOT_API_PASSPHRASE,
        },
      });
      expect(ok.status).toBe(200);
      const refused = await signed(r.url, {
        method: 'GET',
        path: '/capi/v2/order/history',
        ts: time.timestamp,
        creds: SIM_TEST_CREDENTIALS,
      });
      expect((refused.json as { code: string }).code).toBe('40006');
    } finally {
      expect(await stop(r, 'SIGINT')).toBe(0);
    }
    for (const v of Object.values(creds)) expect(r.stderr()).not.toContain(v);
  });

  it('injects the faults of a --faults profile and counts them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'capibot-sim-e2e-'));
    const file = join(dir, 'faults.yaml');
    await writeFile(file, 'faults:\n  - { kind: rateLimited, probability: 1, endpoints: [time] }\n');
    const r = await startCli(['--faults', file, '--seed', '1']);
    try {
      const t = await raw(r.url, 'GET', '/capi/v2/market/time');
      expect(t.status).toBe(429);
      expect(t.json).toMatchObject({ code: '429', msg: 'Too many requests', data: null });
      const stats = (await raw(r.url, 'GET', '/sim/v1/stats')).json as {
        faults: { byKind: Record<string, number> };
      };
      expect(stats.faults.byKind['rateLimited']).toBe(1);
    } finally {
      expect(await stop(r)).toBe(0);
    }
    await writeFile(file, 'faults:\n  - { kind: rateLimited, probability: 3 }\n');
    const bad = spawn(process.execPath, ['bin/capibot.js', 'sim', '--data', FIXTURE, '--faults', file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    bad.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const [code] = (await once(bad, 'exit')) as [number];
    expect(code).toBe(2);
    expect(err).toContain('faults.0.probability');
  });

  it('bad usage exits 2 with one line on stderr', async () => {
    const child = spawn(
      process.execPath,
      ['bin/capibot.js', 'sim', '--data', 'test/fixtures/recordings/missing.ndjson'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(2);
    expect(err).toContain('missing.ndjson');
  });
});
