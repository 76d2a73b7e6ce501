// Fuzzing of every capi/v2 wire schema and its mapper with arbitrary JSON and near misses of the
// documented replies. The contract at this layer:
//   - `schema.safeParse` never throws, whatever the value (a failure is a zod result, not a crash);
//   - a mapper given a value its schema accepted never crashes (no TypeError, no stack overflow):
//     the only errors are its documented refusals (a RangeError naming the bad value), which the
//     client turns into a BadResponseError (checked end to end in client-replies.fuzz.test.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { dec } from '../../src/core/decimal.ts';
import { clientOid } from '../../src/core/ids.ts';
import type { PlaceEntry } from '../../src/exchange/port.ts';
import { parseLosslessJson } from '../../src/exchange/weex/lossless-json.ts';
import {
  batchOutcomesFromWire,
  cancelOutcomeFromWire,
  contractFromWire,
  fillFromWire,
  orderReportFromWire,
  placeEntryFromWire,
  planReportFromWire,
  tickerFromWire,
  wireTickerFromParsed,
} from '../../src/exchange/weex/mappers.ts';
import {
  batchOrdersBodySchema,
  batchOrdersReplySchema,
  cancelOrderBodySchema,
  cancelOrderReplySchema,
  contractSchema,
  contractsSchema,
  errorEnvelopeSchema,
  fillSchema,
  fillsReplySchema,
  historyRowSchema,
  historySchema,
  placeEntrySchema,
  placeOrderBodySchema,
  placeOrderReplySchema,
  planHistoryReplySchema,
  tickerSchema,
  tickersSchema,
  timeSchema,
  wireDecimal,
  wireDecimalLoose,
  wireId,
  wireTime,
} from '../../src/exchange/weex/schemas.ts';
import { describeZodError } from '../../src/exchange/weex/zod-issues.ts';
import { FIXTURES_DIR, arbitraryJsonText, nearMiss, replyText, toJsonText } from './support/near-miss.ts';
import { attempt, describeThrown } from './support/typed.ts';

const RUNS = 250;

const SENT: readonly PlaceEntry[] = [
  {
    clientOid: clientOid('order12346'),
    side: 'open_long',
    orderType: 'normal',
    size: dec('0.01'),
    price: dec('1'),
  },
  { clientOid: clientOid('cb_2'), side: 'close_short', orderType: 'ioc', size: dec('0.02') },
];

/**
 * The deliberate refusals of mappers.ts (RangeError with a message naming the value). A `dec()`
 * refusal is not among them: it would mean the schema accepted a decimal the mapper cannot read.
 */
const MAPPER_REFUSAL = /^(bad decimal-places value|unknown order status|bad type\/order_type)/;

interface Case {
  readonly name: string;
  readonly fixtures: readonly string[];
  readonly schema: z.ZodType;
  readonly map?: (parsed: never) => unknown;
}

const CASES: readonly Case[] = [
  {
    name: 'tickers',
    fixtures: ['tickers.json', 'tickers.no-mark-index.json'],
    schema: tickersSchema,
    map: (rows: z.output<typeof tickersSchema>) => rows.map((r) => tickerFromWire(wireTickerFromParsed(r))),
  },
  {
    name: 'ticker (older variant)',
    fixtures: ['ticker.older-variant.json'],
    schema: tickerSchema,
    map: (r: z.output<typeof tickerSchema>) => tickerFromWire(wireTickerFromParsed(r)),
  },
  { name: 'time', fixtures: ['time.json'], schema: timeSchema },
  {
    name: 'contracts',
    fixtures: ['contracts.json', 'contracts.hackathon-guide.json'],
    schema: contractsSchema,
    map: (rows: z.output<typeof contractsSchema>) => rows.map(contractFromWire),
  },
  {
    name: 'placeOrder reply',
    fixtures: ['placeOrder.json', 'placeOrder.echo-client-oid.json'],
    schema: placeOrderReplySchema,
  },
  {
    name: 'batchOrders reply',
    fixtures: ['batchOrders.json'],
    schema: batchOrdersReplySchema,
    map: (r: z.output<typeof batchOrdersReplySchema>) => batchOutcomesFromWire(r, SENT),
  },
  {
    name: 'cancel_order reply',
    fixtures: ['cancel_order.json', 'cancel_order.older-variant.json'],
    schema: cancelOrderReplySchema,
    map: (r: z.output<typeof cancelOrderReplySchema>) => cancelOutcomeFromWire(r),
  },
  {
    name: 'history',
    fixtures: ['history.json', 'current.json', 'history.numeric-createTime.json'],
    schema: historySchema,
    map: (rows: z.output<typeof historySchema>) => rows.map(orderReportFromWire),
  },
  {
    name: 'order detail',
    fixtures: ['detail.json'],
    schema: historyRowSchema,
    map: (r: z.output<typeof historyRowSchema>) => orderReportFromWire(r),
  },
  {
    name: 'fills',
    fixtures: ['fills.json', 'fills.18-digit-ids.json', 'fills.bare-array.json', 'fills.under-data.json'],
    schema: fillsReplySchema,
    map: (p: z.output<typeof fillsReplySchema>) => p.list.map(fillFromWire),
  },
  {
    name: 'historyPlan',
    fixtures: ['historyPlan.json', 'historyPlan.word-status.json'],
    schema: planHistoryReplySchema,
    map: (p: z.output<typeof planHistoryReplySchema>) => p.list.map(planReportFromWire),
  },
  {
    name: 'error envelope',
    fixtures: [
      'error-40020.json',
      'error-40015.live-message.json',
      'error-404.spring.json',
      'success-wrapper.json',
    ],
    schema: errorEnvelopeSchema,
  },
];

/** Request bodies: the simulator reads these from clients it does not trust. */
const PLACE_BODY = {
  symbol: 'cmt_btcusdt',
  client_oid: 'cb_1',
  size: '0.01',
  type: '1',
  order_type: '0',
  match_price: '0',
  price: '90000.5',
  marginMode: 1,
};
const REQUEST_CASES: readonly {
  name: string;
  value: unknown;
  schema: z.ZodType;
  map?: (p: never) => unknown;
}[] = [
  {
    name: 'placeOrder body',
    value: PLACE_BODY,
    schema: placeOrderBodySchema,
    map: (p: z.output<typeof placeOrderBodySchema>) => placeEntryFromWire(p),
  },
  {
    name: 'placeOrder entry',
    value: { ...PLACE_BODY, symbol: undefined, marginMode: undefined },
    schema: placeEntrySchema,
    map: (p: z.output<typeof placeEntrySchema>) => placeEntryFromWire(p),
  },
  {
    name: 'batchOrders body',
    value: {
      symbol: 'cmt_btcusdt',
      orderDataList: [PLACE_BODY, { ...PLACE_BODY, client_oid: 'cb_2', type: 3 }],
    },
    schema: batchOrdersBodySchema,
    map: (p: z.output<typeof batchOrdersBodySchema>) => p.orderDataList.map(placeEntryFromWire),
  },
  {
    name: 'cancel_order body',
    value: { symbol: 'cmt_btcusdt', orderId: '596476148997685805' },
    schema: cancelOrderBodySchema,
  },
];

/** parse → schema → mapper, asserting the contract of the file comment. */
function checkPipeline(text: string, schema: z.ZodType, map: ((p: never) => unknown) | undefined): void {
  const parsed = attempt(() => parseLosslessJson(text));
  if (!parsed.ok) {
    // Only for text that is not JSON; the transport catches it (lossless-json.fuzz.test.ts).
    expect(parsed.error, describeThrown(parsed.error)).toBeInstanceOf(Error);
    return;
  }
  const r = attempt(() => schema.safeParse(parsed.value));
  if (!r.ok) throw new Error(`safeParse threw: ${describeThrown(r.error)}`);
  if (!r.value.success) {
    // The client turns this into a BadResponseError naming the field: that must not crash either.
    const d = attempt(() => describeZodError(r.value.error as z.ZodError));
    expect(d.ok, d.ok ? '' : describeThrown(d.error)).toBe(true);
    return;
  }
  if (map === undefined) return;
  const m = attempt(() => map(r.value.data as never));
  if (m.ok) return;
  const ok = m.error instanceof RangeError && MAPPER_REFUSAL.test(m.error.message);
  expect(ok, `mapper crashed on schema-valid input: ${describeThrown(m.error)}`).toBe(true);
}

describe('wire reply schemas and mappers under hostile input', () => {
  for (const c of CASES) {
    it(`${c.name}: near misses of the documented replies`, () => {
      fc.assert(
        fc.property(replyText(c.fixtures), (text) => checkPipeline(text, c.schema, c.map)),
        { numRuns: RUNS },
      );
    });
  }

  it('every reply schema under arbitrary JSON values', () => {
    fc.assert(
      fc.property(arbitraryJsonText, (text) => {
        for (const c of CASES) checkPipeline(text, c.schema, c.map);
        for (const c of REQUEST_CASES) checkPipeline(text, c.schema, c.map);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('wire request schemas (read by the simulator) under hostile input', () => {
  for (const c of REQUEST_CASES) {
    it(`${c.name}: near misses`, () => {
      const fixture = loadFixtureValue(c.value);
      fc.assert(
        fc.property(nearMiss(fixture), (text) => checkPipeline(text, c.schema, c.map)),
        { numRuns: RUNS },
      );
    });
  }
});

function fixtureValue(name: string): unknown {
  return parseLosslessJson(readFileSync(join(FIXTURES_DIR, name), 'utf8'));
}

/** A plain value as a near-miss base (undefined fields dropped, as JSON would). */
function loadFixtureValue(v: unknown): Parameters<typeof nearMiss>[0] {
  return JSON.parse(toJsonText(v)) as Parameters<typeof nearMiss>[0];
}

describe('wire scalars', () => {
  it('wireId, wireTime, wireDecimal(Loose) never throw and only yield what they promise', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.string({ unit: 'binary' })), (v) => {
        const id = wireId.safeParse(v);
        if (id.success) expect(id.data.length).toBeGreaterThan(0);
        const t = wireTime.safeParse(v);
        if (t.success) expect(Number.isInteger(t.data) && t.data >= 0).toBe(true);
        for (const s of [wireDecimal, wireDecimalLoose]) {
          const d = s.safeParse(v);
          if (d.success) expect(() => dec(d.data)).not.toThrow();
        }
      }),
      { numRuns: 500 },
    );
  });

  // Regression: the decimal syntax shared by the wire schemas (core/decimal.ts isDecimalString,
  // and format.ts isDecimalText for recordings) accepted an exponent of any size. big.js stores
  // "1e99999999" in a few bytes, but the first addition aligns the digits: `dec('1e99999999').plus(1)`
  // builds a 10^8-digit array (seconds of CPU, ~1 GB), "1e999999999" runs out of memory. One such
  // field in a ticker reply or a recording line passes validation and then stalls or kills the
  // process at the first mid-price computation. Decimals on the wire never need an exponent beyond
  // a few dozen; the schemas should refuse larger ones.
  it('a decimal with an absurd exponent is refused at the wire boundary', () => {
    const absurd = ['1e99999999', '-1e-99999999', '1E999999999999', '0.1e100000'];
    const ticker = fixtureValue('ticker.older-variant.json') as Record<string, unknown>;
    const fill = (fixtureValue('fills.bare-array.json') as Record<string, unknown>[])[0];
    const contract = (fixtureValue('contracts.json') as Record<string, unknown>[])[0];
    // The unmodified rows are valid: each refusal below is the exponent's.
    expect(tickerSchema.safeParse(ticker).success).toBe(true);
    expect(fillSchema.safeParse(fill).success).toBe(true);
    expect(contractSchema.safeParse(contract).success).toBe(true);
    for (const s of absurd) {
      expect(wireDecimal.safeParse(s).success, s).toBe(false);
      expect(tickerSchema.safeParse({ ...ticker, last: s }).success, `ticker.last ${s}`).toBe(false);
      expect(fillSchema.safeParse({ ...fill, fillValue: s }).success, `fill.fillValue ${s}`).toBe(false);
      expect(contractSchema.safeParse({ ...contract, minOrderSize: s }).success).toBe(false);
    }
  });
});
