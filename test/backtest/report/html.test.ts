import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { buildChartData } from '../../../src/backtest/report/chart-data.ts';
import { chartLibrary } from '../../../src/backtest/report/chart-library.ts';
import { reportFills } from '../../../src/backtest/report/fills.ts';
import { escapeJsonForScript } from '../../../src/backtest/report/html.ts';
import { buildReport } from '../../../src/backtest/report/index.ts';
import { summarize } from '../../../src/backtest/report/summary.ts';
import type { EquitySample, PricePoint, RunRecord } from '../../../src/backtest/report/types.ts';
import { fill, MIN, order, roundTrip, T0 } from './fixtures.ts';
import { HOSTILE_DATA, HOSTILE_ID, hostileRecord } from './hostile.ts';

/** URLs the inlined library carries as text (none is ever loaded): SVG namespace, licence, logo link. */
const LIBRARY_URLS = [
  'http://www.w3.org/2000/svg',
  'https://www.apache.org/licenses/LICENSE-2.0',
  'https://www.tradingview.com/',
];

function scriptBody(html: string, id: string): string {
  const m = new RegExp(`<script[^>]*id="${id}"[^>]*>([\\s\\S]*?)</script>`).exec(html);
  if (!m) throw new Error(`no script #${id}`);
  return m[1]!;
}

describe('report.html is self-contained and offline', () => {
  const html = buildReport(roundTrip()).html;

  it('inlines the chart library and loads nothing from anywhere', () => {
    const lib = scriptBody(html, 'chart-library');
    expect(lib).toContain(chartLibrary().source);
    expect(chartLibrary().source).toContain('createSeriesMarkers');
    const outside = html.replace(lib, '');
    expect(outside).not.toMatch(/https?:\/\//i);
    expect(outside).not.toMatch(/\s(src|href|srcset|action)\s*=/i);
    expect(outside).not.toMatch(/@import|url\(/i);
    expect(outside).toContain(`content="default-src 'none'`);
    // The library's own URL strings are text (namespace, licence comment, attribution link).
    for (const url of lib.match(/https?:\/\/[^\s"'`)]*/g) ?? []) {
      expect(
        LIBRARY_URLS.some((allowed) => url.startsWith(allowed)),
        url,
      ).toBe(true);
    }
  });

  it('carries the data as parseable JSON', () => {
    const data = JSON.parse(scriptBody(html, 'report-data'));
    expect(data.run.firstTickIso).toBe('2024-07-19T00:00:00.000Z');
    expect(data.summaryRows).toContainEqual(['Net PnL', '19.66']);
    expect(data.charts.symbols[0].symbol).toBe('cmt_btcusdt');
    expect(data.charts.symbols[0].markers).toHaveLength(2);
    expect(data.breakdown).toEqual([
      ['strategy', 's1', '1', '0', '100.00 %', 'n/a', '19.66', '19.66', '0.34', ''],
      ['symbol', 'cmt_btcusdt', '1', '0', '100.00 %', 'n/a', '19.66', '19.66', '0.34', '10.00 %'],
    ]);
    expect(data.trades).toHaveLength(1);
    expect(data.trades[0].cells).toEqual([
      '1',
      's1',
      'cmt_btcusdt',
      'long',
      '2024-07-19 00:01:00',
      '2024-07-19 00:03:00',
      '2m 00s',
      '2',
      '100',
      '110',
      '20.00',
      '0.34',
      '19.66',
      'strategy',
    ]);
    expect(data.returns).toEqual({ period: 'day', rows: [['2024-07-19', '1.97 %', 1, '1,019.66']] });
  });
});

describe('the data tag cannot be broken out of', () => {
  const html = buildReport(hostileRecord()).html;

  it('keeps exactly the page’s own script elements', () => {
    expect(html.match(/<\/script/gi)).toHaveLength(3);
    expect(html.match(/<script/gi)).toHaveLength(3);
    expect(html.match(/<!--/g)).toBeNull();
  });

  it('gives the hostile texts back unchanged to the page', () => {
    const data = JSON.parse(scriptBody(html, 'report-data'));
    expect(data.run.strategies[0].id).toBe(HOSTILE_ID);
    expect(data.run.data).toBe(HOSTILE_DATA);
    expect(data.run.strategies[0].params).toEqual({ '</script>': 1, note: '<!-- <script>' });
  });

  it('escapes the title', () => {
    expect(html).toContain('<title>capibot backtest: data/&lt;/SCRIPT &gt;&amp;amp;&lt;b&gt;x&lt;/b&gt;');
  });

  it('escapeJsonForScript round-trips any string and never emits <, > or &', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const escaped = escapeJsonForScript(JSON.stringify({ s }));
        expect(escaped).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(escaped)).toEqual({ s });
      }),
    );
  });
});

describe('chart data', () => {
  it('snaps markers onto points of the line and caps them', () => {
    const base = roundTrip();
    const rec: RunRecord = {
      ...base,
      orders: [order(1, 'open_long', 'filled'), order(2, 'close_long', 'filled')],
      fills: Array.from({ length: 30 }, (_, k) =>
        fill(k, (k % 2) + 1, T0 + 7_777 * k, { size: '1', value: String(100 + k), fee: '0' }),
      ),
    };
    const charts = buildChartData(rec, reportFills(rec.fills, rec.orders), summarize(rec), {
      maxMarkersPerSymbol: 10,
      maxLabelledMarkers: 5,
    });
    const [btc] = charts.symbols;
    expect(btc!.fills).toBe(30);
    expect(btc!.markers).toHaveLength(10);
    for (const m of btc!.markers) expect(btc!.line.t).toContain(m.t);
    expect(btc!.markers.every((m) => m.text === '')).toBe(true);
    expect(btc!.markers[0]!.buy).toBe(true);
  });

  it('draws a traded symbol without prices through its fills', () => {
    const rec: RunRecord = { ...roundTrip(), prices: {} };
    const charts = buildChartData(rec, reportFills(rec.fills, rec.orders), summarize(rec));
    expect(charts.symbols[0]!.line.v).toEqual([100, 110]);
    expect(charts.symbols[0]!.precision).toBe(0);
  });

  it('draws the underwater curve as equity ÷ its running peak − 1, in percent', () => {
    const charts = buildChartData(roundTrip(), [], summarize(roundTrip()));
    expect(charts.drawdown.v.map((x) => Number(x.toFixed(6)))).toEqual([0, -0.016, 0, 0, 0]);
  });

  it('draws buy and hold of the starting balance on the equity axis', () => {
    // Start 1000 (1019.664 − 19.664); BTC 100 → 100 → 105 → 110 → 110.
    const charts = buildChartData(roundTrip(), [], summarize(roundTrip()));
    expect(charts.buyAndHold.v.map((x) => Number(x.toFixed(6)))).toEqual([1000, 1000, 1050, 1100, 1100]);
    expect(charts.buyAndHold.t).toEqual(charts.equity.t);
  });
});

describe('a 31-day run', () => {
  it('gives a report.html under 3 MB', () => {
    const days = 31;
    const minutes = days * 24 * 60;
    const prices = (base: number): PricePoint[] =>
      Array.from({ length: minutes }, (_, k) => ({
        t: T0 + k * MIN,
        last: dec(String(base + (k % 977) / 10)),
      }));
    const equity: EquitySample[] = Array.from({ length: minutes }, (_, k) => ({
      t: T0 + k * MIN,
      equity: dec(String(10_000 + ((k * 7919) % 1000) / 100)),
      realized: dec(0),
      unrealized: dec(0),
    }));
    const orders = [order(1, 'open_long', 'filled'), order(2, 'close_long', 'filled')];
    const fills = Array.from({ length: 5000 }, (_, k) =>
      fill(k, (k % 2) + 1, T0 + k * 8 * MIN, {
        size: '0.01',
        value: '650.5',
        fee: '0.52',
        pnl: k % 2 ? '1.5' : '0',
      }),
    );
    const rec: RunRecord = {
      ...roundTrip(),
      run: { ...roundTrip().run, lastTickTime: T0 + minutes * MIN, tickers: minutes * 6 },
      orders,
      fills,
      equity,
      prices: { cmt_btcusdt: prices(65_000), cmt_ethusdt: prices(3_500) },
    };
    const { html } = buildReport(rec);
    expect(Buffer.byteLength(html)).toBeLessThan(3_000_000);
    const data = JSON.parse(scriptBody(html, 'report-data'));
    expect(data.charts.equity.t.length).toBeLessThanOrEqual(4000);
    expect(data.charts.symbols).toHaveLength(2);
  });
});
