// The Prometheus metrics served over loopback: scraped, parsed, checked by name and value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { startObsServer } from '../../src/obs/http-server.ts';
import type { ObsServer } from '../../src/obs/http-server.ts';
import { createPromMetrics, noopMetrics } from '../../src/obs/metrics.ts';
import type { Metrics } from '../../src/obs/metrics.ts';

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A small parser of the Prometheus text format (enough to check names, labels and values). */
function parseExposition(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/.exec(line);
    if (!m) throw new Error(`unparsable exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return { samples, types };
}

function value(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    ?.value;
}

describe('Prometheus metrics over loopback', () => {
  let now = 1_000_000;
  const metrics = createPromMetrics({ clock: { now: () => now } });
  let server: ObsServer;

  beforeAll(async () => {
    server = await startObsServer({
      port: 0,
      registry: metrics.registry,
      readiness: () => ({ reconciled: true, fresh: true }),
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('serves every metric of the runner, parseable, with the values recorded', async () => {
    const m: Metrics = metrics;
    m.budget('ip', 120, 780);
    m.budget('uid', 40, 860);
    m.budget('orders', 3, 6);
    m.requestDone('tickers', 200, 12);
    m.requestDone('tickers', 200, 15);
    m.requestDone('batchOrders', 429, 3);
    m.requestDone('placeOrder', 'timeout');
    m.queueDepth(5, 'place');
    m.intent('ema', 'approved');
    m.intent('ema', 'refused');
    m.intent('ema', 'approved');
    m.ordersByStatus({ open: 3, unknown: 1 });
    m.unknownOrders(1);
    m.reconcileCorrection('adopted');
    m.reconcileCorrection('late_fill', 2);
    m.reconciled(999_000);
    m.fill('ema', 'cmt_btcusdt', dec('0.0432'), '54.0');
    m.fill('ema', 'cmt_btcusdt', '-0.0100', dec('10'));
    m.pnl('ema', 'cmt_btcusdt', dec('12.5'), '-3.25');
    m.tickerSeen('cmt_btcusdt', 994_000);
    m.tickerSeen('cmt_btcusdt', 990_000); // older: ignored
    m.tradingState('REDUCING');
    m.strategyFailed('grid');
    now = 1_000_000;

    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const { samples, types } = parseExposition(await res.text());

    expect(value(samples, 'capibot_budget_used', { pool: 'ip' })).toBe(120);
    expect(value(samples, 'capibot_budget_remaining', { pool: 'uid' })).toBe(860);
    expect(value(samples, 'capibot_budget_remaining', { pool: 'orders' })).toBe(6);
    expect(value(samples, 'capibot_requests_total', { endpoint: 'tickers', status: '200' })).toBe(2);
    expect(value(samples, 'capibot_requests_total', { endpoint: 'placeOrder', status: 'timeout' })).toBe(1);
    expect(value(samples, 'capibot_rate_limited_total', { endpoint: 'batchOrders' })).toBe(1);
    expect(value(samples, 'capibot_request_duration_seconds_count', { endpoint: 'tickers' })).toBe(2);
    expect(value(samples, 'capibot_queue_depth', { queue: 'place' })).toBe(5);
    expect(value(samples, 'capibot_intents_total', { strategy: 'ema', outcome: 'approved' })).toBe(2);
    expect(value(samples, 'capibot_orders', { status: 'open' })).toBe(3);
    expect(value(samples, 'capibot_orders', { status: 'filled' })).toBe(0);
    expect(value(samples, 'capibot_orders_unknown')).toBe(1);
    expect(value(samples, 'capibot_reconcile_corrections_total', { kind: 'late_fill' })).toBe(2);
    expect(value(samples, 'capibot_last_reconcile_timestamp_seconds')).toBe(999);
    expect(value(samples, 'capibot_fills_total', { strategy: 'ema', symbol: 'cmt_btcusdt' })).toBe(2);
    expect(value(samples, 'capibot_fees_paid', { strategy: 'ema', symbol: 'cmt_btcusdt' })).toBeCloseTo(
      0.0332,
      10,
    );
    expect(value(samples, 'capibot_fill_notional_total', { symbol: 'cmt_btcusdt' })).toBe(64);
    expect(value(samples, 'capibot_pnl_realized', { strategy: 'ema', symbol: 'cmt_btcusdt' })).toBe(12.5);
    expect(value(samples, 'capibot_pnl_unrealized', { strategy: 'ema', symbol: 'cmt_btcusdt' })).toBe(-3.25);
    expect(value(samples, 'capibot_ticker_age_seconds', { symbol: 'cmt_btcusdt' })).toBe(6);
    expect(value(samples, 'capibot_trading_state', { state: 'REDUCING' })).toBe(1);
    expect(value(samples, 'capibot_trading_state', { state: 'ACTIVE' })).toBe(0);
    expect(value(samples, 'capibot_strategy_failures_total', { strategy: 'grid' })).toBe(1);
    expect(types.get('capibot_requests_total')).toBe('counter');
    expect(types.get('capibot_ticker_age_seconds')).toBe('gauge');
    // Process metrics are collected on the same (non-global) registry.
    expect(
      samples.some(
        (s) => s.name === 'capibot_process_resident_memory_bytes' || s.name.startsWith('capibot_process_'),
      ),
    ).toBe(true);
  });

  it('ticker age grows between scrapes while no ticker arrives', async () => {
    metrics.tickerSeen('cmt_ethusdt', 1_000_000);
    now = 1_030_000;
    const { samples } = parseExposition(await (await fetch(`${server.url}/metrics`)).text());
    expect(value(samples, 'capibot_ticker_age_seconds', { symbol: 'cmt_ethusdt' })).toBe(30);
  });

  it('uses its own registry: two instances do not collide', () => {
    expect(() => createPromMetrics({ defaultMetrics: true })).not.toThrow();
    expect(() => createPromMetrics({ defaultMetrics: true })).not.toThrow();
  });
});

describe('noopMetrics', () => {
  it('accepts every call and does nothing', () => {
    const m: Metrics = noopMetrics;
    expect(() => {
      m.budget('ip', 1, 2);
      m.requestDone('tickers', 200, 1);
      m.queueDepth(1);
      m.intent('a', 'approved');
      m.ordersByStatus({ open: 1 });
      m.unknownOrders(0);
      m.reconcileCorrection('adopted');
      m.reconciled(0);
      m.fill('a', 'b', '1');
      m.pnl('a', 'b', '1', '2');
      m.tickerSeen('b', 0);
      m.tradingState('HALTED');
      m.strategyFailed('a');
    }).not.toThrow();
  });
});
