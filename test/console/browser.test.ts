// The console in a real browser (Debian's headless chromium over CDP, see ./cdp.ts), against a real
// runner trading on `capibot sim`: the page loads without console errors, a fill the simulator makes
// shows up within a second, the kill button (after its confirmation) halts the runner, and without a
// token every route answers 401. A missing chromium FAILS (as the report test does); set
// CAPIBOT_SKIP_BROWSER=1 to skip deliberately.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { crashVenue, inspect, type WireFill } from '../helpers/capibot-processes.ts';
import { Browser, findChromium } from './cdp.ts';
import { serveBacktest } from '../../src/console/serve-backtest.ts';
import { roundTrip } from '../backtest/report/fixtures.ts';
import { bearer, READ_TOKEN, startConsoleRun, TOKEN, type ConsoleRun } from './harness.ts';

const SKIP = process.env.CAPIBOT_SKIP_BROWSER === '1';
const venue = crashVenue('console-browser', { seed: 7, t0: Date.UTC(2026, 0, 5) }, { faults: [] });

describe.skipIf(SKIP)('the web console in headless chromium', () => {
  const chromium = findChromium();
  let run: ConsoleRun | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    if (chromium === undefined) return;
    run = await startConsoleRun(venue().sim.url, venue().dir);
    browser = await Browser.launch(chromium);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await run?.stop();
  }, 60_000);

  it('finds chromium', () => {
    if (chromium === undefined)
      expect.fail(
        "chromium not found (looked at $CHROMIUM_BIN, PATH and /usr/bin/chromium): install Debian's chromium, or set CAPIBOT_SKIP_BROWSER=1",
      );
  });

  it('answers 401 on every route without a token (and with a wrong one)', async () => {
    const r = run;
    if (r === undefined) return expect.fail('no runner');
    const paths = [
      '/',
      '/static/console.js',
      '/static/console.css',
      '/static/lightweight-charts.js',
      '/api/session',
      '/api/snapshot',
      '/api/events',
      '/no/such/route',
      '/static/../../etc/passwd',
    ];
    for (const path of paths) {
      for (const headers of [{}, bearer('wrong-token-wrong-token')]) {
        const res = await fetch(`${r.url}${path}`, { headers });
        expect(res.status, path).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
        await res.arrayBuffer();
      }
    }
    const post = await fetch(`${r.url}/api/control`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Capibot-Console': '1' },
      body: JSON.stringify({ action: 'kill', confirm: 'KILL' }),
    });
    expect(post.status).toBe(401);
  });

  it('loads without console errors, and shows a fill within a second of the simulator making it', async () => {
    const r = run;
    const b = browser;
    if (r === undefined || b === undefined) return expect.fail('no runner or browser');
    await b.headers(bearer(TOKEN));
    await b.goto(`${r.url}/`);
    await b.waitFor<boolean>("document.body.dataset.status === 'ok'", 20_000);
    expect(await b.eval<string>('document.body.dataset.role')).toBe('control');
    expect(await b.eval<number>("document.querySelectorAll('#c-equity canvas').length")).toBeGreaterThan(0);

    // Watch the simulator for a fill the page has not shown yet, then give the page a second.
    const seen = new Set(
      await b.eval<string[]>("[...document.querySelectorAll('tr.fill')].map((r) => r.dataset.tradeId)"),
    );
    const simFills = new Set(
      (await inspect<WireFill[]>(venue().sim.url, '/sim/v1/fills')).map((f) => f.tradeId),
    );
    let fresh: string | undefined;
    for (let i = 0; i < 400 && fresh === undefined; i++) {
      const now = await inspect<WireFill[]>(venue().sim.url, '/sim/v1/fills');
      fresh = now.map((f) => f.tradeId).find((id) => !simFills.has(id) && !seen.has(id));
      if (fresh === undefined) await new Promise((res) => setTimeout(res, 25));
    }
    if (fresh === undefined) return expect.fail('the simulator made no fill in 10 s');
    await b.waitFor<boolean>(`document.querySelector('tr.fill[data-trade-id="${fresh}"]') !== null`, 1_000);
    expect(b.errors).toEqual([]);
  }, 60_000);

  it('pauses a strategy and halts the runner with the kill button, each after its confirmation', async () => {
    const r = run;
    const b = browser;
    if (r === undefined || b === undefined) return expect.fail('no runner or browser');
    // Pause `second`: the confirmation first, nothing happens until it is confirmed.
    await b.eval('document.querySelector(\'button[data-action="pause"][data-strategy="second"]\').click()');
    expect(await b.eval<boolean>("document.getElementById('c-confirm').hidden")).toBe(false);
    await b.eval("document.getElementById('c-confirm-yes').click()");
    await b.waitFor<boolean>(
      'document.querySelector(\'button[data-action="resume"][data-strategy="second"]\') !== null',
      3_000,
    );

    // The kill switch: cancel once (nothing happens), then confirm.
    await b.eval("document.getElementById('c-kill').click()");
    await b.eval("document.getElementById('c-confirm-no').click()");
    await new Promise((res) => setTimeout(res, 300));
    expect(await b.eval<string>('document.body.dataset.tradingState')).toBe('ACTIVE');
    await b.eval("document.getElementById('c-kill').click()");
    await b.eval("document.getElementById('c-confirm-yes').click()");
    await b.waitFor<boolean>("document.body.dataset.tradingState === 'HALTED'", 3_000);
    const snap = (await (await fetch(`${r.url}/api/snapshot`, { headers: bearer(TOKEN) })).json()) as {
      tradingState: string;
    };
    expect(snap.tradingState).toBe('HALTED');
    expect(b.errors).toEqual([]);

    const result = await r.stop();
    expect(result.exitCode).toBe(0);
    // Recorded like `capibot kill`: the request and its acknowledgement are in the store.
    const store = new SqliteStore({ path: r.store, lease: false });
    try {
      expect(store.getMeta('control.killRequest')).toMatch(/console: operator kill from the console/);
      expect(store.getMeta('control.killAck')).toMatch(/"tradingState":"HALTED"/);
      expect(store.getMeta('control.paused')).toBe('["second"]');
    } finally {
      store.close();
    }
  }, 60_000);
});

describe.skipIf(SKIP)('a finished backtest in the same console page', () => {
  it('shows the run read-only (no control), with its fills and equity, without console errors', async () => {
    const chromium = findChromium();
    if (chromium === undefined) return expect.fail('chromium not found');
    const record = roundTrip();
    const server = await serveBacktest({
      record,
      console: { host: '127.0.0.1', port: 0, tokenEnv: 'T', readTokenEnv: 'R', allowedOrigins: [] },
      env: { T: TOKEN, R: READ_TOKEN },
      say: () => undefined,
    });
    const b = await Browser.launch(chromium);
    try {
      await b.headers(bearer(READ_TOKEN));
      await b.goto(`${server.url}/`);
      await b.waitFor<boolean>("document.body.dataset.status === 'ok'", 20_000);
      expect(await b.eval<string>('document.body.dataset.role')).toBe('read');
      expect(await b.eval<string>("document.getElementById('c-mode').textContent")).toMatch(
        /finished backtest/,
      );
      expect(await b.eval<boolean>("document.getElementById('c-controls').hidden")).toBe(true);
      expect(await b.eval<number>("document.querySelectorAll('button[data-action]').length")).toBe(0);
      expect(await b.eval<number>("document.querySelectorAll('tr.fill').length")).toBe(record.fills.length);
      expect(await b.eval<number>("document.querySelectorAll('#c-equity canvas').length")).toBeGreaterThan(0);
      expect(b.errors).toEqual([]);
      // The control token cannot act on a backtest either.
      const res = await fetch(`${server.url}/api/control`, {
        method: 'POST',
        headers: { ...bearer(TOKEN), 'Content-Type': 'application/json', 'X-Capibot-Console': '1' },
        body: JSON.stringify({ action: 'kill', confirm: 'KILL' }),
      });
      expect(res.status).toBe(403);
    } finally {
      await b.close();
      await server.close();
    }
  }, 60_000);
});
