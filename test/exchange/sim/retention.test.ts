// The simulator's retention (src/exchange/sim/retention.ts): memory stays bounded under a long
// stream of orders, every history page and every fills window the reconciler can ask for answers
// exactly as a simulator that forgets nothing (property), and a query beyond the retention answers
// as documented.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { ContractTable } from '../../../src/exchange/sim/contracts.ts';
import { FaultInjector, NO_FAULTS } from '../../../src/exchange/sim/faults.ts';
import { MatchingCore } from '../../../src/exchange/sim/matching.ts';
import { queryParams } from '../../../src/exchange/sim/params.ts';
import { SimVenue } from '../../../src/exchange/sim/venue.ts';
import { ticker } from './helpers.ts';

const SYMS = ['cmt_aaausdt', 'cmt_bbbusdt'] as const;
const rules = {
  sizeStep: '0.01',
  priceTick: '0.1',
  minSize: '0.01',
  maxSize: '1000',
  makerFeeRate: '0.0002',
  takerFeeRate: '0.0005',
};
const contracts = new ContractTable(Object.fromEntries(SYMS.map((s) => [s, rules])));
const T0 = 1_750_000_000_000;

function venue(retentionMs?: number): SimVenue {
  const core = new MatchingCore({
    contracts,
    cancelDelayMs: 2_000,
    ...(retentionMs !== undefined ? { retentionMs } : {}),
  });
  return new SimVenue({ core, faults: new FaultInjector(NO_FAULTS, 1), idsAsNumbers: false });
}

interface Step {
  readonly dt: number;
  readonly sym: 0 | 1;
  readonly kind: 'take' | 'rest' | 'post' | 'cancel';
  readonly move: number;
  readonly pick: number;
}

/** Drives one venue: a price walk per symbol, and one request per step. */
class Driver {
  readonly v: SimVenue;
  t = T0;
  n = 0;
  readonly #price = [1000, 2000];
  constructor(v: SimVenue) {
    this.v = v;
    this.#tick();
  }

  #tick(): void {
    this.v.core.applyTickers(
      this.t,
      SYMS.map((s, i) => {
        const p = this.#price[i] as number;
        return ticker(s, p.toFixed(1), (p + 0.1).toFixed(1));
      }),
    );
  }

  step(s: Step): void {
    this.t += s.dt;
    this.#price[s.sym] = Math.max(10, (this.#price[s.sym] as number) + s.move);
    this.#tick();
    const sym = SYMS[s.sym];
    const p = this.#price[s.sym] as number;
    const core = this.v.core;
    if (s.kind === 'cancel') {
      const active = core.newestOrders(sym, undefined, 20).filter((o) => o.status === 'open');
      const o = active[Math.floor(s.pick * active.length)];
      if (o !== undefined) core.cancel(this.t, { orderId: o.orderId });
      return;
    }
    const price = s.kind === 'take' ? p + 1 : p - 0.5 - Math.floor(s.pick * 5);
    core.place(this.t, sym, {
      clientOid: `o${this.n++}`,
      side: 'open_long',
      orderType: s.kind === 'take' ? 'ioc' : s.kind === 'post' ? 'postOnly' : 'normal',
      size: dec('0.01'),
      price: dec(price.toFixed(1)),
    });
  }

  history(q: string): unknown {
    const r = this.v.history(queryParams(q), this.v.begin('history'));
    return r.ok ? r.body : r.reject;
  }

  fills(q: string): unknown {
    const r = this.v.fills(queryParams(q), this.v.begin('fills'));
    return r.ok ? r.body : r.reject;
  }
}

const step: fc.Arbitrary<Step> = fc.record({
  dt: fc.integer({ min: 0, max: 30_000 }),
  sym: fc.constantFrom(0 as const, 1 as const),
  kind: fc.constantFrom(
    'take' as const,
    'take' as const,
    'rest' as const,
    'post' as const,
    'cancel' as const,
  ),
  move: fc.integer({ min: -3, max: 3 }),
  pick: fc.double({ min: 0, max: 0.999, noNaN: true }),
});

describe('simulator retention', () => {
  it('answers every history page, and every fills window from R before the latest fill, as without it (property)', () => {
    const R = 10 * 60_000;
    fc.assert(
      fc.property(
        fc.array(step, { minLength: 200, maxLength: 700 }),
        fc.array(
          fc.record({
            sym: fc.constantFrom('', `symbol=${SYMS[0]}&`, `symbol=${SYMS[1]}&`),
            page: fc.constantFrom(1, 7, 50, 100),
            back: fc.integer({ min: 0, max: 3 * 3_600_000 }),
            days: fc.constantFrom(0, 1, 3),
            start: fc.double({ min: 0, max: 1, noNaN: true }),
            span: fc.option(fc.integer({ min: 0, max: R }), { nil: undefined }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        (steps, queries) => {
          const kept = new Driver(venue());
          const forgetting = new Driver(venue(R));
          steps.forEach((s, i) => {
            kept.step(s);
            forgetting.step(s);
            if (i % 25 !== 24) return;
            expect(forgetting.v.core.version).toBe(kept.v.core.version);
            const last = kept.v.core.fills().at(-1)?.createdTime;
            for (const q of queries) {
              const createDate = q.days > 0 ? String(q.days) : String(kept.t - q.back);
              const h = `${q.sym}pageSize=${q.page}&createDate=${createDate}`;
              expect(forgetting.history(h)).toEqual(kept.history(h));
              expect(forgetting.history(`${q.sym}pageSize=${q.page}`)).toEqual(
                kept.history(`${q.sym}pageSize=${q.page}`),
              );
              if (last === undefined) continue;
              const start = Math.round(last - R + q.start * R);
              const f = `${q.sym}startTime=${start}${q.span !== undefined ? `&endTime=${start + q.span}` : ''}`;
              expect(forgetting.fills(f)).toEqual(kept.fills(f));
            }
          });
          // It did forget: a stream this long outlives the retention.
          const k = kept.v.core.remembered;
          const f = forgetting.v.core.remembered;
          if (kept.t - T0 > 4 * R && k.orders > 250) expect(f.orders).toBeLessThan(k.orders);
          if (kept.t - T0 > 4 * R && k.fills > 100) expect(f.fills).toBeLessThan(k.fills);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('keeps memory bounded under a long stream of orders', () => {
    const R = 60_000;
    const d = new Driver(venue(R));
    let most = { orders: 0, fills: 0 };
    for (let i = 0; i < 20_000; i++) {
      // One request a second: takers (filled at once), resting bids and their cancels.
      d.step({
        dt: 1_000,
        sym: (i % 2) as 0 | 1,
        kind: i % 3 === 0 ? 'rest' : i % 3 === 1 ? 'take' : 'cancel',
        move: (i % 7) - 3,
        pick: 0.5,
      });
      const m = d.v.core.remembered;
      if (i > 1_000) most = { orders: Math.max(most.orders, m.orders), fills: Math.max(most.fills, m.fills) };
    }
    expect(d.n).toBeGreaterThan(13_000);
    // The newest 100 orders per symbol, those ended within R (60 at one a second), the resting ones.
    expect(most.orders).toBeLessThan(2 * 100 + 2 * 60 + 100);
    // Fills within R of the latest one.
    expect(most.fills).toBeLessThanOrEqual(61);
  });

  it('answers a query beyond the retention as the venue does for data it no longer serves', () => {
    const R = 60_000;
    const kept = new Driver(venue());
    const d = new Driver(venue(R));
    for (let i = 0; i < 600; i++) {
      const s: Step = { dt: 1_000, sym: 0, kind: 'take', move: 0, pick: 0 };
      kept.step(s);
      d.step(s);
    }
    const last = d.v.core.fills().at(-1)?.createdTime ?? 0;
    // Fills: a window wholly before the retention is an empty page; one across it leaves the old out.
    expect(d.fills(`startTime=${T0}&endTime=${last - R - 1}`)).toEqual({
      list: [],
      nextFlag: false,
      totals: 0,
    });
    const across = d.fills(`startTime=${last - 2 * R}`) as { totals: number };
    expect(across.totals).toBe(61);
    expect((kept.fills(`startTime=${last - 2 * R}`) as { totals: number }).totals).toBe(121);
    // Order history: the same page whatever the createDate (forgotten orders were on no page).
    for (const q of ['pageSize=100&createDate=90', `pageSize=100&createDate=${T0}`, 'pageSize=5']) {
      expect(d.history(q)).toEqual(kept.history(q));
    }
    // A forgotten order: a cancel answers "order does not exist", as for any finished order.
    const first = kept.v.core.newestOrders(SYMS[0], undefined, 1_000).at(-1);
    expect(first).toBeDefined();
    expect(d.v.core.order(first!.orderId)).toBeUndefined();
    const cancel = d.v.core.cancel(d.t, { orderId: first!.orderId });
    expect(cancel).toEqual(kept.v.core.cancel(kept.t, { orderId: first!.orderId }));
    expect(cancel).toMatchObject({ ok: false, reject: { code: '50005' } });
    expect(d.v.core.remembered.orders).toBeLessThan(kept.v.core.remembered.orders);
  });
});
