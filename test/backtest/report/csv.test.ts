import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  csvField,
  renderFillsCsv,
  FILLS_CSV_COLUMNS,
  TRADES_CSV_COLUMNS,
} from '../../../src/backtest/report/csv.ts';
import { reportFills } from '../../../src/backtest/report/fills.ts';
import { dec } from '../../../src/core/decimal.ts';
import { buildReport } from '../../../src/backtest/report/index.ts';
import { fill, MIN, order, roundTrip, T0 } from './fixtures.ts';

/** A strict RFC 4180 reader (CRLF records), for checking what the writer produced. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
      } else {
        field += c;
        i++;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
      i++;
    } else if (c === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 2;
    } else {
      if (c === '"' || c === '\r' || c === '\n') throw new Error(`bare ${JSON.stringify(c)} at ${i}`);
      field += c;
      i++;
    }
  }
  if (field !== '' || row.length > 0) throw new Error('last record lacks CRLF');
  return rows;
}

describe('fills.csv', () => {
  it('has a header and one row per fill', () => {
    const rows = parseCsv(buildReport(roundTrip()).csv);
    expect(rows[0]).toEqual([...FILLS_CSV_COLUMNS]);
    expect(rows).toHaveLength(3);
    const byName = (r: string[]): Record<string, string> =>
      Object.fromEntries(FILLS_CSV_COLUMNS.map((c, k) => [c, r[k]!]));
    expect(byName(rows[2]!)).toMatchObject({
      timeIso: '2024-07-19T00:03:00.000Z',
      tradeId: '5002',
      side: 'close_long',
      price: '110',
      fee: '0.176',
      realizedPnl: '20',
      triggerPrice: '',
    });
  });

  it('marks the fills of a triggered plan order with its trigger price', () => {
    const base = roundTrip();
    const [, close] = base.orders;
    const record = {
      ...base,
      orders: base.orders.map((o) => (o === close ? { ...o, triggerPrice: dec('108.5') } : o)),
    };
    const rows = parseCsv(buildReport(record).csv);
    const at = FILLS_CSV_COLUMNS.indexOf('triggerPrice');
    expect(rows.slice(1).map((r) => r[at])).toEqual(['', '108.5']);
  });

  it('quotes fields as RFC 4180 requires', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\r')).toBe('"cr\r"');
    expect(csvField('')).toBe('');
  });

  it('round-trips any text through quoting', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme-ascii' }), { minLength: 1, maxLength: 5 }),
        fc.string(),
        (fields, odd) => {
          const all = [...fields, odd + ',"\r\n'];
          const f = { ...fill(1, 1, T0, { size: '1', value: '2', fee: '0' }), direction: all.join('|') };
          const text = renderFillsCsv(reportFills([{ ...f, positionSide: 'LONG', orderSide: 'BUY' }], []));
          const rows = parseCsv(text);
          expect(rows).toHaveLength(2);
          expect(rows[1]![FILLS_CSV_COLUMNS.indexOf('direction')]).toBe(all.join('|'));
        },
      ),
    );
  });
});

describe('trades.csv', () => {
  it('has one row per trade, exact money, and empty exit fields for an open trade', () => {
    const base = roundTrip();
    const rec = {
      ...base,
      orders: [...base.orders, order(5, 'open_short', 'filled', { size: '1', filled: '1' })],
      fills: [...base.fills, fill(3, 5, T0 + 3 * MIN + 1, { size: '1', value: '110', fee: '0.044' })],
    };
    const lines = buildReport(rec).tradesCsv.split('\r\n');
    expect(lines[0]).toBe(TRADES_CSV_COLUMNS.join(','));
    expect(lines[1]).toBe(
      `s1,cmt_btcusdt,long,${T0 + MIN},2024-07-19T00:01:00.000Z,${T0 + 3 * MIN},2024-07-19T00:03:00.000Z,` +
        '2,0,100,110,20,0.336,19.664,120000,strategy,2',
    );
    expect(lines[2]).toBe(
      `s1,cmt_btcusdt,short,${T0 + 3 * MIN + 1},2024-07-19T00:03:00.001Z,,,1,1,110,,0,0.044,-0.044,59999,end_of_data,1`,
    );
    expect(lines[3]).toBe('');
  });
});
