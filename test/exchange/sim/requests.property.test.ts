// The in-process port places orders and plans and cancels them from their requests
// (src/exchange/sim/requests.ts, params.ts placeInputOf / batchInputOf / cancelSelectorOf,
// plan-params.ts planInputOf), without the wire body. Property: for any entries, requests and symbol,
// those requests and refusals are exactly what the venue's body parsers make of the body the port
// (and WeexClient) would send; and an entry the direct path leaves to the wire is one the venue refuses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { VENUE_LIMITS } from '../../../src/core/endpoints.ts';
import { clientOid as toClientOid, orderId, symbolId } from '../../../src/core/ids.ts';
import type { CancelRequest, PlaceEntry, PlanEntry } from '../../../src/exchange/port.ts';
import {
  batchInputOf,
  cancelSelectorOf,
  parseBatchOrdersBody,
  parseCancelBody,
  parsePlaceOrderBody,
  placeInputOf,
} from '../../../src/exchange/sim/params.ts';
import { parsePlanOrderBody, planInputOf } from '../../../src/exchange/sim/plan-params.ts';
import {
  cancelNeedsWire,
  planRequestOfEntry,
  requestOfEntry,
  requestsOfEntries,
} from '../../../src/exchange/sim/requests.ts';
import { cancelToWire, placeEntryToWire, planEntryToWire } from '../../../src/exchange/weex/mappers.ts';

const known = (s: string): boolean => s === 'cmt_btcusdt' || s === 'cmt_ethusdt';
const symbol = fc.constantFrom('cmt_btcusdt', 'cmt_ethusdt', 'cmt_nope', '');

/** A decimal with up to 10 places, either sign (the venue's body checks see only its text). */
const decimal = fc
  .tuple(fc.integer({ min: -9_999_999_999, max: 9_999_999_999 }), fc.integer({ min: 0, max: 10 }))
  .map(([m, k]) => dec(m).div(dec(10).pow(k)));
const oid = fc.oneof(
  { weight: 8, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/) },
  { weight: 1, arbitrary: fc.oneof(fc.constant(''), fc.string({ maxLength: 45 })) },
);

const entry: fc.Arbitrary<PlaceEntry> = fc
  .record({
    clientOid: oid,
    side: fc.constantFrom('open_long', 'open_short', 'close_long', 'close_short'),
    orderType: fc.constantFrom('normal', 'postOnly', 'fok', 'ioc'),
    size: decimal,
    price: fc.option(decimal, { nil: undefined }),
    tp: fc.option(decimal, { nil: undefined }),
    sl: fc.option(decimal, { nil: undefined }),
  })
  .map((r): PlaceEntry => ({
    clientOid: toClientOid(r.clientOid),
    side: r.side,
    orderType: r.orderType,
    size: r.size,
    ...(r.price !== undefined ? { price: r.price } : {}),
    ...(r.tp !== undefined ? { presetTakeProfitPrice: r.tp } : {}),
    ...(r.sl !== undefined ? { presetStopLossPrice: r.sl } : {}),
  }));

/** The body as it travels (JSON text and back), as the HTTP server would parse it. */
const sent = (body: unknown): unknown => JSON.parse(JSON.stringify(body));

describe('in-process placements: requests without the wire body', () => {
  it('one order: the same request or refusal as its placeOrder body', () => {
    fc.assert(
      fc.property(symbol, entry, (sym, e) => {
        const parsed = parsePlaceOrderBody(sent({ symbol: sym, ...placeEntryToWire(e) }), known);
        const request = requestOfEntry(e);
        if (request === undefined) {
          expect(parsed.ok).toBe(false); // left to the wire: the venue refuses it there
          return;
        }
        expect(placeInputOf(sym, request, known)).toStrictEqual(parsed);
      }),
      { numRuns: 400 },
    );
  });

  it('a batch: the same requests, refusals and per-entry results as its batchOrders body', () => {
    fc.assert(
      fc.property(
        symbol,
        fc.array(entry, { minLength: 0, maxLength: VENUE_LIMITS.maxBatchOrders + 3 }),
        (sym, entries) => {
          const parsed = parseBatchOrdersBody(
            sent({ symbol: sym, orderDataList: entries.map(placeEntryToWire) }),
            known,
          );
          const requests = requestsOfEntries(entries);
          if (requests === undefined) {
            // Left to the wire: some entry is refused there (or the whole batch is).
            const refused = !parsed.ok || parsed.value.entries.some((x) => !x.ok);
            expect(refused).toBe(true);
            return;
          }
          expect(batchInputOf(sym, requests, known)).toStrictEqual(parsed);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a plan: the same request or refusal as its plan_order body', () => {
    const plan: fc.Arbitrary<PlanEntry> = fc
      .record({
        clientOid: oid,
        side: fc.constantFrom('open_long', 'open_short', 'close_long', 'close_short'),
        size: decimal,
        triggerPrice: decimal,
        executePrice: fc.option(decimal, { nil: undefined }),
      })
      .map((r): PlanEntry => ({
        clientOid: toClientOid(r.clientOid),
        side: r.side,
        size: r.size,
        triggerPrice: r.triggerPrice,
        ...(r.executePrice !== undefined ? { executePrice: r.executePrice } : {}),
      }));
    let direct = 0;
    fc.assert(
      fc.property(symbol, plan, (sym, e) => {
        const parsed = parsePlanOrderBody(sent(planEntryToWire(sym, e)), known);
        const request = planRequestOfEntry(e);
        if (request === undefined) {
          expect(parsed.ok).toBe(false);
          return;
        }
        expect(planInputOf(sym, request, known)).toStrictEqual(parsed);
        if (parsed.ok) direct++;
      }),
      { numRuns: 400 },
    );
    expect(direct).toBeGreaterThan(50);
  });

  it('a cancel (of an order or a plan): the same selector or refusal as its body', () => {
    const id = fc.oneof(
      { weight: 6, arbitrary: fc.stringMatching(/^\d{1,30}$/) },
      { weight: 1, arbitrary: fc.oneof(fc.constant(''), fc.string({ maxLength: 32 })) },
    );
    const req: fc.Arbitrary<CancelRequest> = fc
      .record({
        symbol,
        orderId: fc.option(id, { nil: undefined }),
        clientOid: fc.option(oid, { nil: undefined }),
      })
      .map((r): CancelRequest => ({
        symbol: symbolId(r.symbol),
        ...(r.orderId !== undefined ? { orderId: orderId(r.orderId) } : {}),
        ...(r.clientOid !== undefined ? { clientOid: toClientOid(r.clientOid) } : {}),
      }));
    let direct = 0;
    fc.assert(
      fc.property(req, (r) => {
        const parsed = parseCancelBody(sent(cancelToWire(r)), known);
        if (cancelNeedsWire(r)) {
          expect(parsed.ok).toBe(false); // an empty value: the body check names it
          return;
        }
        expect(cancelSelectorOf(r, known)).toStrictEqual(parsed);
        if (parsed.ok) direct++;
      }),
      { numRuns: 400 },
    );
    expect(direct).toBeGreaterThan(50);
  });

  it("refuses a body's symbol as the venue does: absent or empty 40019, not text or not listed 40020", () => {
    const entry = placeEntryToWire({
      clientOid: toClientOid('s-1'),
      side: 'open_long',
      orderType: 'normal',
      size: dec('0.01'),
    });
    const codeOf = (symbol: unknown): string | undefined => {
      const body = symbol === undefined ? { ...entry } : { symbol, ...entry };
      const r = parsePlaceOrderBody(body, known);
      return r.ok ? undefined : r.reject.code;
    };
    expect([undefined, null, ''].map(codeOf)).toEqual(['40019', '40019', '40019']);
    expect([5, ['cmt_btcusdt'], 'cmt_nope'].map(codeOf)).toEqual(['40020', '40020', '40020']);
    expect(codeOf('cmt_btcusdt')).toBeUndefined();
    expect(
      placeInputOf('', { clientOid: 's-1', side: 'open_long', orderType: 'normal', size: dec('1') }, known),
    ).toMatchObject({ ok: false, reject: { code: '40019' } });
  });
});
