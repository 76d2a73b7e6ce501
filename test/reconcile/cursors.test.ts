import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { dec, ZERO } from '../../src/core/decimal.ts';
import { orderId, symbolId, tradeId } from '../../src/core/ids.ts';
import type { FillPage, FillReport, PlanReport } from '../../src/core/reports.ts';
import type { FillsQuery } from '../../src/exchange/port.ts';
import {
  activityOf,
  afterFillsPage,
  beginFillsPoll,
  combinedCoverage,
  decodeFillsCursor,
  encodeFillsCursor,
  fillsQuery,
  historyCoverage,
  historyQueries,
  nextPlanPage,
  planHistoryQueries,
  pollInterval,
  type FillsCursor,
  type FillsPagingConfig,
} from '../../src/reconcile/cursors.ts';
import { decodePlanCursor, plainPlanCursor } from '../../src/reconcile/plan-cursor.ts';
import { BTC, T0, localOrder } from './fixtures.ts';

const ETH = symbolId('cmt_ethusdt');

function fillAt(id: string, t: number): FillReport {
  return {
    tradeId: tradeId(id),
    orderId: orderId('1'),
    symbol: BTC,
    positionSide: 'LONG',
    orderSide: 'BUY',
    direction: 'OPEN_LONG',
    size: dec(1),
    value: dec(1),
    fee: ZERO,
    realizedPnl: ZERO,
    createdTime: t,
  };
}

/** A fills endpoint: newest first, `limit` rows, nextFlag when more match; endTime inclusive or not. */
function endpoint(all: readonly { fill: FillReport; visibleAt: number }[], inclusive: boolean) {
  return (q: FillsQuery, now: number): FillPage => {
    const match = all
      .filter((x) => x.visibleAt <= now)
      .map((x) => x.fill)
      .filter((f) => f.createdTime >= (q.startTime ?? 0))
      .filter(
        (f) =>
          q.endTime === undefined || (inclusive ? f.createdTime <= q.endTime : f.createdTime < q.endTime),
      )
      .sort((a, b) => b.createdTime - a.createdTime || (a.tradeId < b.tradeId ? 1 : -1));
    const limit = q.limit ?? 100;
    return { fills: match.slice(0, limit), nextFlag: match.length > limit };
  };
}

function poll(
  cursor: FillsCursor,
  cfg: FillsPagingConfig,
  now: number,
  api: (q: FillsQuery, now: number) => FillPage,
  seen: Set<string>,
) {
  let paging = beginFillsPoll(cursor, cfg, now);
  const queries: FillsQuery[] = [];
  const warnings: string[] = [];
  for (;;) {
    const q = fillsQuery(paging, cfg);
    queries.push(q);
    const page = api(q, now);
    for (const f of page.fills) seen.add(f.tradeId);
    const step = afterFillsPage(paging, page, cursor, cfg);
    if (step.warning !== undefined) warnings.push(step.warning);
    if (step.kind === 'done') return { cursor: step.cursor, queries, warnings };
    paging = step.paging;
  }
}

const cfg: FillsPagingConfig = { overlapMs: 5_000, initialLookbackMs: 60_000, maxPages: 3, limit: 5 };

/** What `schema` makes of `text` parsed as JSON; undefined when either refuses it. */
function schemaValue<T>(schema: z.ZodType<T>, text: string): T | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const r = schema.safeParse(raw);
  return r.success ? r.data : undefined;
}

/** Property: `decode` gives what `bySchema` gives for every text, and decodes a fair share of them. */
function decodesAsSchema(
  decode: (text: string) => object,
  bySchema: (text: string) => unknown,
  text: fc.Arbitrary<string>,
): void {
  let decoded = 0;
  fc.assert(
    fc.property(text, (t) => {
      const got = decode(t);
      expect(got).toStrictEqual(bySchema(t));
      if (Object.keys(got).length > 0) decoded++;
    }),
    { numRuns: 2000 },
  );
  expect(decoded).toBeGreaterThan(200);
}

describe('fills paging', () => {
  it('starts from the lookback on the first poll, then from the newest fill seen minus the overlap', () => {
    expect(fillsQuery(beginFillsPoll({}, cfg, T0), cfg)).toEqual({ startTime: T0 - 60_000, limit: 5 });
    expect(fillsQuery(beginFillsPoll({ newestSeen: T0 }, cfg, T0 + 99), cfg)).toEqual({
      startTime: T0 - 5_000,
      limit: 5,
    });
  });

  it('pages back while nextFlag is set, re-reading the boundary millisecond so no fill of it is skipped', () => {
    // 3 fills at t=200, 4 at t=100, 2 at t=50; pages of 5 cut through t=100. The naive rule
    // (endTime = oldest − 1 = 99) would skip the two t=100 fills that did not fit in page 1.
    const times = [200, 200, 200, 100, 100, 100, 100, 50, 50];
    const fills = times.map((t, i) => ({ fill: fillAt(`t${i}`, T0 + t), visibleAt: 0 }));
    for (const inclusive of [true, false]) {
      const seen = new Set<string>();
      const r = poll({}, cfg, T0 + 1_000, endpoint(fills, inclusive), seen);
      expect(seen.size).toBe(9);
      expect(r.queries[1]!.endTime).toBe(T0 + 101); // oldest of page 1 (+1)
      expect(r.cursor).toEqual({ newestSeen: T0 + 200 });
    }
  });

  it('steps past a millisecond holding more fills than a page, and says so', () => {
    const fills = [
      ...Array.from({ length: 7 }, (_, i) => ({ fill: fillAt(`a${i}`, T0 + 100), visibleAt: 0 })),
      { fill: fillAt('b', T0 + 50), visibleAt: 0 },
    ];
    const seen = new Set<string>();
    const r = poll({}, cfg, T0 + 1_000, endpoint(fills, true), seen);
    // Seven fills in one millisecond exceed a page of five: paging must step past it and say so.
    expect(r.warnings.some((w) => /no progress/.test(w))).toBe(true);
    expect(seen.has('b')).toBe(true);
  });

  it('stops after the page budget and leaves the rest as a backfill window for the next poll', () => {
    const fills = Array.from({ length: 30 }, (_, i) => ({
      fill: fillAt(`t${i}`, T0 + i * 10),
      visibleAt: 0,
    }));
    const api = endpoint(fills, true);
    const seen = new Set<string>();
    const first = poll({}, cfg, T0 + 1_000, api, seen);
    expect(first.queries).toHaveLength(3);
    expect(first.cursor.backfill).toBeDefined();
    expect(first.cursor.newestSeen).toBe(T0 + 290);
    let c = first.cursor;
    for (let i = 0; i < 10 && c.backfill !== undefined; i++) c = poll(c, cfg, T0 + 1_000, api, seen).cursor;
    expect(c).toEqual({ newestSeen: T0 + 290 });
    expect(seen.size).toBe(30);
  });

  it('keeps the cursor through the meta table, and tolerates a damaged value', () => {
    const c: FillsCursor = { newestSeen: 5, backfill: { startTime: 1, endTime: 3 } };
    expect(decodeFillsCursor(encodeFillsCursor(c))).toEqual(c);
    expect(decodeFillsCursor(undefined)).toEqual({});
    expect(decodeFillsCursor('{oops')).toEqual({});
    expect(decodeFillsCursor('{"newestSeen":-1}')).toEqual({});
  });

  it('decodes a cursor as the schema does, whatever the text (property)', () => {
    const schema = z.object({
      newestSeen: z.number().int().nonnegative().optional(),
      backfill: z
        .object({ startTime: z.number().int().nonnegative(), endTime: z.number().int().nonnegative() })
        .optional(),
    });
    const bySchema = (text: string): FillsCursor => {
      const data = schemaValue(schema, text);
      if (data === undefined) return {};
      return {
        ...(data.newestSeen !== undefined ? { newestSeen: data.newestSeen } : {}),
        ...(data.backfill !== undefined ? { backfill: data.backfill } : {}),
      };
    };
    const time = fc.oneof(
      { arbitrary: fc.integer({ min: 0, max: 2 ** 53 - 1 }), weight: 6 },
      { arbitrary: fc.constantFrom(-1, 1.5, 2 ** 53, 1e300, '5', null, true, [], {}), weight: 1 },
    );
    const cursor = fc.record(
      {
        newestSeen: time,
        backfill: fc.oneof(
          fc.record({ startTime: time, endTime: time, extra: fc.anything() }, { requiredKeys: [] }),
          fc.constantFrom(null, 3, [], 'x'),
        ),
        extra: fc.anything(),
      },
      { requiredKeys: [] },
    );
    const text = fc.oneof(
      { arbitrary: cursor.map((c) => JSON.stringify(c)), weight: 6 },
      { arbitrary: fc.constantFrom('null', '[]', '7', '"x"', '{', '', '{"newestSeen":1}x'), weight: 1 },
      { arbitrary: fc.string(), weight: 1 },
    );
    decodesAsSchema(decodeFillsCursor, bySchema, text);
  });

  it('decodes a plan cursor as its schema does, whatever the text (property)', () => {
    const schema = z.record(z.string(), z.number().int().nonnegative());
    const bySchema = (text: string): unknown => schemaValue(schema, text) ?? {};
    const end = fc.oneof(
      { arbitrary: fc.integer({ min: 0, max: 2 ** 53 - 1 }), weight: 8 },
      { arbitrary: fc.constantFrom(-1, -0, 1.5, 2 ** 53, 1e300, '5', null, true, [], {}), weight: 1 },
    );
    const key = fc.oneof(
      { arbitrary: fc.constantFrom('cmt_btcusdt', 'cmt_ethusdt'), weight: 4 },
      { arbitrary: fc.constantFrom('__proto__', 'constructor', '', '0', 'toString'), weight: 1 },
      { arbitrary: fc.string(), weight: 1 },
    );
    const text = fc.oneof(
      { arbitrary: fc.dictionary(key, end, { maxKeys: 4 }).map((c) => JSON.stringify(c)), weight: 6 },
      { arbitrary: fc.constantFrom('{"__proto__":5}', '{"a":1,"__proto__":{"b":2}}'), weight: 1 },
      { arbitrary: fc.constantFrom('null', '[]', '[1]', '7', '"x"', '{', '', '{}'), weight: 1 },
      { arbitrary: fc.string(), weight: 1 },
    );
    decodesAsSchema(decodePlanCursor, bySchema, text);
    // The cursors capibot writes are read by hand, not by the schema.
    const written = { cmt_btcusdt: 1_721_347_203_000, cmt_ethusdt: 0 };
    expect(plainPlanCursor(JSON.parse(JSON.stringify(written)))).toStrictEqual(written);
    expect(plainPlanCursor({})).toStrictEqual({});
  });

  it('eventually reads every fill, with late indexing inside the overlap, either endTime reading (property)', () => {
    const arb = fc.record({
      fills: fc.uniqueArray(
        fc.record({
          ms: fc.integer({ min: 0, max: 400 }),
          k: fc.integer({ min: 0, max: 1 }),
          lag: fc.integer({ min: 0, max: 50 }),
        }),
        {
          selector: (x) => `${x.ms}/${x.k}`,
          maxLength: 60,
        },
      ),
      inclusive: fc.boolean(),
      pollEvery: fc.integer({ min: 5, max: 200 }),
    });
    fc.assert(
      fc.property(arb, ({ fills, inclusive, pollEvery }) => {
        const all = fills.map((x) => ({
          fill: fillAt(`${x.ms}-${x.k}`, T0 + x.ms * 2),
          visibleAt: T0 + x.ms * 2 + x.lag,
        }));
        const api = endpoint(all, inclusive);
        const c2: FillsPagingConfig = { overlapMs: 60, initialLookbackMs: 10_000, maxPages: 2, limit: 5 };
        const seen = new Set<string>();
        let cursor: FillsCursor = {};
        let now = T0;
        for (let i = 0; i < 400 && (now < T0 + 1_000 || cursor.backfill !== undefined); i++) {
          now += pollEvery;
          const r = poll(cursor, c2, now, api, seen);
          expect(r.warnings.filter((w) => /no progress/.test(w))).toEqual([]);
          cursor = r.cursor;
        }
        expect(seen.size).toBe(all.length);
      }),
      { numRuns: 150 },
    );
  });
});

describe('history windows', () => {
  const hcfg = { pageSize: 100, lookbackMs: 3_600_000, skewMs: 5_000 };

  it('asks per symbol from the oldest order still needing settlement, or the lookback', () => {
    const now = T0 + 10_000_000;
    const q = historyQueries(
      [
        localOrder(1, { status: 'unknown', createdAt: T0 }),
        localOrder(2, { status: 'open', createdAt: T0 + 50 }),
        localOrder(3, { status: 'filled', createdAt: T0 - 999_999 }),
      ],
      [BTC, ETH],
      hcfg,
      now,
    );
    expect(q).toEqual([
      { symbol: BTC, pageSize: 100, createDate: T0 - 5_000 },
      { symbol: ETH, pageSize: 100, createDate: now - 3_600_000 },
    ]);
  });

  it('never asks beyond the 90-day limit', () => {
    const now = T0 + 200 * 86_400_000;
    const [q] = historyQueries([localOrder(1, { status: 'unknown', createdAt: T0 })], [], hcfg, now);
    expect(q!.createDate).toBeGreaterThan(now - 90 * 86_400_000);
  });

  it('proves nothing with a full page, so no order is declared lost on it', () => {
    const q = { symbol: BTC, pageSize: 10, createDate: T0 };
    expect(historyCoverage(q, 9, T0 + 5)).toBe(T0);
    expect(historyCoverage(q, 10, T0 + 5)).toBe(T0 + 6);
    expect(combinedCoverage([T0, T0 + 6], T0 + 5)).toBe(T0 + 6);
    expect(combinedCoverage([], T0 + 5)).toBe(T0 + 6);
  });
});

describe('plan-history windows', () => {
  const pcfg = {
    overlapMs: 1_000,
    initialLookbackMs: 10_000,
    maxWindowMs: 4_000,
    maxWindows: 2,
    pageSize: 100,
    delegateTypes: [] as const,
  };

  it('walks each symbol forward in bounded windows and says where to resume', () => {
    const plan = planHistoryQueries([ETH, BTC], {}, pcfg, T0);
    expect(plan.queries).toEqual([
      { symbol: BTC, startTime: T0 - 10_000, endTime: T0 - 6_000, pageSize: 100 },
      { symbol: BTC, startTime: T0 - 6_000, endTime: T0 - 2_000, pageSize: 100 },
      { symbol: ETH, startTime: T0 - 10_000, endTime: T0 - 6_000, pageSize: 100 },
      { symbol: ETH, startTime: T0 - 6_000, endTime: T0 - 2_000, pageSize: 100 },
    ]);
    expect(plan.cursorAfter).toEqual({ [BTC]: T0 - 2_000, [ETH]: T0 - 2_000 });
    const next = planHistoryQueries([BTC], plan.cursorAfter, pcfg, T0);
    expect(next.queries).toEqual([{ symbol: BTC, startTime: T0 - 3_000, endTime: T0, pageSize: 100 }]);
  });

  it('asks once per delegateType when configured', () => {
    const plan = planHistoryQueries([BTC], { [BTC]: T0 - 500 }, { ...pcfg, delegateTypes: [3, 4] }, T0);
    expect(plan.queries.map((q) => q.delegateType)).toEqual([3, 4]);
  });

  it('pages inside a window by moving endTime down to the oldest row', () => {
    const q = { symbol: BTC, startTime: T0, endTime: T0 + 1_000, pageSize: 2 };
    const plan = (t: number): PlanReport => ({
      symbol: BTC,
      orderId: orderId(String(t)),
      status: 'untriggered',
      rawStatus: 'UNTRIGGERED',
      type: 'CLOSE_LONG',
      orderType: '0',
      size: dec(1),
      price: ZERO,
      triggerPrice: dec(1),
      createTime: t,
      filledQty: ZERO,
      priceAvg: ZERO,
      fee: ZERO,
    });
    expect(nextPlanPage(q, { plans: [plan(T0 + 900), plan(T0 + 700)], nextPage: true })).toEqual({
      ...q,
      endTime: T0 + 701,
    });
    expect(nextPlanPage(q, { plans: [plan(T0 + 900)], nextPage: false })).toBeUndefined();
    // No progress possible (the page's oldest row is at the window's end): step past, or stop.
    expect(nextPlanPage({ ...q, endTime: T0 + 1 }, { plans: [plan(T0)], nextPage: true })).toBeUndefined();
  });
});

describe('adaptive poll interval', () => {
  const iv = { fastMs: 500, normalMs: 3_000, idleMs: 30_000, idleAfterMs: 60_000 };
  it('is quick while orders are in flight or unknown, steady while open, slow when idle', () => {
    expect(pollInterval(activityOf(['submitted', 'filled']), iv, T0)).toBe(500);
    expect(pollInterval(activityOf(['unknown']), iv, T0)).toBe(500);
    expect(pollInterval(activityOf(['open', 'canceled']), iv, T0)).toBe(3_000);
    expect(pollInterval(activityOf(['filled'], T0 - 1_000), iv, T0)).toBe(3_000);
    expect(pollInterval(activityOf(['filled'], T0 - 60_000), iv, T0)).toBe(30_000);
    expect(pollInterval(activityOf([]), iv, T0)).toBe(30_000);
  });
});
