// End to end: the real `capibot` binary (node bin/capibot.js api …) against a loopback server.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJson, startLocalServer, type LocalServer } from '../../helpers/local-server.ts';

const ROOT = join(import.meta.dirname, '../../..');
const FIX = join(ROOT, 'test/fixtures/weex-docs');
const fixture = (name: string): string => readFileSync(join(FIX, name), 'utf8');
const CREDS = {
  CAPIBOT_API_KEY: 'cli-key',
  CAPIBOT_API_SECRET: 'cli-secret',
  CAPIBOT_API_PASSPHRASE: 'cli-pass',
};

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function capibot(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('CAPIBOT_')) base[k] = v;
  }
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/capibot.js', ...args],
      { cwd: ROOT, env: { ...base, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let server: LocalServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capibot-api-'));
  server = await startLocalServer((req, res) => {
    switch (req.path) {
      case '/capi/v2/market/time':
        return sendJson(res, 200, { epoch: '', iso: '', timestamp: Date.now() });
      case '/capi/v2/market/tickers':
        return sendJson(res, 200, fixture('tickers.json'));
      case '/capi/v2/order/fills':
        return req.query.includes('symbol=cmt_badusdt')
          ? sendJson(res, 400, {
              code: '40020',
              msg: 'Parameter symbol is invalid',
              requestTime: 1765776928145,
              data: null,
            })
          : sendJson(res, 200, fixture('fills.18-digit-ids.json'));
      case '/capi/v2/order/placeOrder':
      case '/capi/v2/order/plan_order':
        return sendJson(res, 200, fixture('placeOrder.echo-client-oid.json'));
      case '/capi/v2/order/cancel_plan':
        return sendJson(res, 200, fixture('cancel_order.json'));
      case '/capi/v2/order/currentPlan':
        return sendJson(res, 200, fixture('currentPlan.json'));
      case '/capi/v2/order/batchOrders':
        // Raw text: the first order_id is an 18-digit JSON number, as some replies send ids.
        return sendJson(
          res,
          200,
          '{"order_info":[{"order_id":719220560554361701,"client_oid":"a1","result":true,"error_code":"","error_message":""},' +
            '{"order_id":"","client_oid":"a2","result":false,"error_code":"40015","error_message":"stepSize"}],"result":true}',
        );
      default:
        return sendJson(res, 404, { timestamp: '', status: 404, error: 'Not Found', path: req.path });
    }
  });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

// The spawned CLIs are independent (each test looks only at its own paths), so they run concurrently.
describe.concurrent('capibot api (e2e)', { timeout: 90_000 }, () => {
  it('api tickers prints the tickers as JSON and exits 0, sending no credentials', async () => {
    const r = await capibot(['api', 'tickers', '--base-url', server.url], CREDS);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(fixture('tickers.json')));
    for (const req of server.to('/capi/v2/market/tickers')) expect(req.headers['access-key']).toBeUndefined();
  });

  it('CAPIBOT_BASE_URL is the default base URL', async () => {
    const r = await capibot(['api', 'tickers'], { CAPIBOT_BASE_URL: server.url });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(1);
  });

  it('api fills prints 18-19 digit ids as exact strings', async () => {
    const r = await capibot(
      ['api', 'fills', '--base-url', server.url, '--symbol', 'cmt_btcusdt', '--limit', '100'],
      CREDS,
    );
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { list: { tradeId: unknown; orderId: unknown }[]; nextFlag: boolean };
    expect(out.list.map((f) => f.tradeId)).toEqual(['719220560554361777', '9007199254740993123']);
    expect(out.nextFlag).toBe(true);
    expect(server.to('/capi/v2/order/fills').map((q) => q.query)).toContain('symbol=cmt_btcusdt&limit=100');
    // One request per call: signed with the local clock, no market/time request first.
    expect(server.to('/capi/v2/market/time')).toHaveLength(0);
  });

  it('an exchange error exits 1 with one line on stderr carrying the code', async () => {
    const r = await capibot(['api', 'fills', '--base-url', server.url, '--symbol', 'cmt_badusdt'], CREDS);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('40020');
    expect(lines[0]).toContain('EXCHANGE');
    for (const v of Object.values(CREDS)) expect(r.stderr).not.toContain(v);
  });

  it('bad usage exits 2: both ids on cancel, a non-number limit, a signed call without credentials', async () => {
    const [both, limit, noCreds] = await Promise.all([
      capibot(
        [
          'api',
          'cancel',
          '--base-url',
          server.url,
          '--symbol',
          'cmt_btcusdt',
          '--order-id',
          '1',
          '--client-oid',
          'x',
        ],
        CREDS,
      ),
      capibot(['api', 'fills', '--base-url', server.url, '--limit', 'many'], CREDS),
      capibot(['api', 'history', '--base-url', server.url]),
    ]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('exactly one');
    expect(limit.code).toBe(2);
    expect(noCreds.code).toBe(2);
    expect(noCreds.stderr).toContain('CAPIBOT_API_KEY');
    expect(server.to('/capi/v2/order/cancel_order')).toHaveLength(0);
    expect(server.to('/capi/v2/order/history')).toHaveLength(0);
    expect(server.requests.filter((r) => r.query.includes('many'))).toHaveLength(0);
  });

  it('api plan-place (market: match_type 1, execute_price 0), plan-cancel, plan-current', async () => {
    const [placed, canceled, current, noId] = await Promise.all([
      capibot(
        [
          'api',
          'plan-place',
          '--base-url',
          server.url,
          '--symbol',
          'cmt_btcusdt',
          '--client-oid',
          'smt_tighten_1771475543800',
          '--side',
          'close_long',
          '--size',
          '0.01',
          '--trigger-price',
          '95000',
        ],
        CREDS,
      ),
      capibot(
        [
          'api',
          'plan-cancel',
          '--base-url',
          server.url,
          '--symbol',
          'cmt_btcusdt',
          '--order-id',
          '596476148997685805',
        ],
        CREDS,
      ),
      capibot(
        ['api', 'plan-current', '--base-url', server.url, '--symbol', 'cmt_btcusdt', '--limit', '50'],
        CREDS,
      ),
      capibot(['api', 'plan-cancel', '--base-url', server.url, '--symbol', 'cmt_btcusdt'], CREDS),
    ]);
    expect(placed.code).toBe(0);
    expect(JSON.parse(placed.stdout)).toMatchObject({ order_id: '719220560554361701' });
    expect(JSON.parse(server.to('/capi/v2/order/plan_order')[0]!.body)).toEqual({
      symbol: 'cmt_btcusdt',
      client_oid: 'smt_tighten_1771475543800',
      size: '0.01',
      type: '3',
      match_type: '1',
      execute_price: '0',
      trigger_price: '95000',
    });
    expect(canceled.code).toBe(0);
    expect(JSON.parse(canceled.stdout)).toMatchObject({ order_id: '596476148997685805', result: true });
    expect(current.code).toBe(0);
    expect((JSON.parse(current.stdout) as { list: unknown[] }).list).toHaveLength(1);
    expect(server.to('/capi/v2/order/currentPlan').map((q) => q.query)).toContain(
      'symbol=cmt_btcusdt&limit=50',
    );
    expect(noId.code).toBe(2);
    expect(noId.stderr).toContain('exactly one');
  });

  it('api place: one entry → placeOrder, several → batchOrders; a bad file exits 2', async () => {
    const one = join(dir, 'one.json');
    writeFileSync(
      one,
      JSON.stringify([
        {
          client_oid: 'smt_tighten_1771475543800',
          size: '0.01',
          type: '3',
          order_type: '0',
          match_price: '0',
          price: '95000',
        },
      ]),
    );
    const two = join(dir, 'two.json');
    writeFileSync(
      two,
      JSON.stringify([
        { client_oid: 'a1', size: '0.01', type: '1', order_type: '0', match_price: '0', price: '90000' },
        { client_oid: 'a2', size: '0.000114', type: 1, order_type: 3, match_price: '1' },
      ]),
    );
    const bad = join(dir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify([{ client_oid: 'a1', size: 0.01, type: '1', order_type: '0', match_price: '1' }]),
    );
    const place = (file: string) =>
      capibot(['api', 'place', '--base-url', server.url, '--symbol', 'cmt_btcusdt', '--orders', file], CREDS);
    const [r1, r2, r3] = await Promise.all([place(one), place(two), place(bad)]);

    expect(r1.code).toBe(0);
    expect(JSON.parse(r1.stdout)).toEqual({
      client_oid: 'smt_tighten_1771475543800',
      order_id: '719220560554361701',
    });
    expect(server.to('/capi/v2/order/placeOrder')).toHaveLength(1);
    expect(JSON.parse(server.to('/capi/v2/order/placeOrder')[0]!.body)).toMatchObject({
      symbol: 'cmt_btcusdt',
      type: '3',
    });

    expect(r2.code).toBe(0);
    const out = JSON.parse(r2.stdout) as { order_info: { order_id: unknown }[] };
    expect(out.order_info[0]?.order_id).toBe('719220560554361701');
    expect(server.to('/capi/v2/order/batchOrders')).toHaveLength(1);
    expect(JSON.parse(server.to('/capi/v2/order/batchOrders')[0]!.body).orderDataList).toHaveLength(2);

    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain('orders[0].size');
  });
});
