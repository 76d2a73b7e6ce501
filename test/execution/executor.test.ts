import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/core/endpoints.ts';
import { TransportError } from '../../src/core/errors.ts';
import { BTC, ETH } from '../helpers/market.ts';
import { eventsOf, harness, oid, placement, runUntilEmpty } from '../helpers/executor-harness.ts';

describe('executor: batching', () => {
  it('sends 40 placements of one symbol in one tick as 2 batchOrders calls of 20', async () => {
    const h = harness();
    for (let i = 1; i <= 40; i++) h.ex.submitPlacement(placement(BTC, i));
    h.ex.endOfTick();
    await runUntilEmpty(h);
    const calls = h.port.requests.filter((r) => r.endpoint === 'batchOrders');
    expect(calls.map((c) => c.ids.length)).toEqual([20, 20]);
    expect(h.port.requests).toHaveLength(2);
    expect(calls.flatMap((c) => c.ids)).toEqual(Array.from({ length: 40 }, (_, i) => oid(i + 1)));
    for (let i = 1; i <= 40; i++)
      expect(eventsOf(h.events, oid(i))).toEqual(['OrderSubmitted', 'OrderAccepted']);
    expect(h.ex.metrics()).toMatchObject({
      batchCalls: 2,
      batchEntries: 40,
      singleCalls: 0,
      requestsByEndpoint: { batchOrders: 2 },
    });
  });

  it('sends a lone placement as placeOrder and groups per symbol', async () => {
    const h = harness();
    h.ex.submitPlacement(placement(BTC, 1));
    h.ex.submitPlacement(placement(ETH, 2));
    h.ex.submitPlacement(placement(ETH, 3));
    h.ex.endOfTick();
    await runUntilEmpty(h);
    expect(h.port.requests.map((r) => `${r.endpoint}:${r.symbol}:${r.ids.length}`).sort()).toEqual([
      'batchOrders:cmt_ethusdt:2',
      'placeOrder:cmt_btcusdt:1',
    ]);
  });

  it('waits for the end of the tick before sending (coalescing)', async () => {
    const h = harness();
    h.ex.submitPlacement(placement(BTC, 1));
    await h.ex.idle();
    expect(h.port.requests).toHaveLength(0);
    expect(h.ex.depth().staged).toBe(1);
    h.ex.submitPlacement(placement(BTC, 2));
    h.ex.endOfTick();
    await runUntilEmpty(h);
    expect(h.port.requests.map((r) => r.ids.length)).toEqual([2]);
  });

  it('coalesces over a time window when coalesce is a number of ms', async () => {
    const h = harness({ executor: { coalesce: 50 } });
    h.ex.submitPlacement(placement(BTC, 1));
    await h.vt.advanceTo(h.vt.now() + 20);
    h.ex.submitPlacement(placement(BTC, 2));
    await h.ex.idle();
    expect(h.port.requests).toHaveLength(0);
    await runUntilEmpty(h);
    expect(h.port.requests.map((r) => r.ids.length)).toEqual([2]);
  });
});

describe('executor: write-ahead and outcomes', () => {
  it('emits OrderSubmitted for every entry before the request leaves', async () => {
    const h = harness();
    h.ex.submitPlacement(placement(BTC, 1));
    h.ex.submitPlacement(placement(BTC, 2));
    h.ex.endOfTick();
    await runUntilEmpty(h);
    expect(h.timeline.slice(0, 3)).toEqual([
      `event:OrderSubmitted:${oid(1)}`,
      `event:OrderSubmitted:${oid(2)}`,
      `request:batchOrders:${oid(1)},${oid(2)}`,
    ]);
  });

  it('turns each entry result into its own accepted/rejected event', async () => {
    const h = harness({ port: { entryPolicy: (e) => (e.clientOid === oid(2) ? 'reject' : 'accept') } });
    for (let i = 1; i <= 3; i++) h.ex.submitPlacement(placement(BTC, i));
    h.ex.endOfTick();
    await runUntilEmpty(h);
    expect(eventsOf(h.events, oid(1))).toEqual(['OrderSubmitted', 'OrderAccepted']);
    expect(h.events.find((e) => e.clientOid === oid(2) && e.kind === 'OrderRejected')).toMatchObject({
      code: '40015',
      reason: 'System error',
    });
  });

  it('makes every entry of a batch with a lost reply unknown, and never resends it', async () => {
    const h = harness({ port: { fate: (r) => (r.endpoint === 'batchOrders' ? 'lost' : 'accept') } });
    for (let i = 1; i <= 3; i++) h.ex.submitPlacement(placement(BTC, i));
    h.ex.endOfTick();
    await runUntilEmpty(h);
    await h.vt.advanceTo(h.vt.now() + 60_000);
    expect(h.port.requests).toHaveLength(1);
    for (let i = 1; i <= 3; i++)
      expect(eventsOf(h.events, oid(i))).toEqual(['OrderSubmitted', 'OrderOutcomeUnknown']);
    expect(h.ex.metrics().outcomeUnknown).toBe(3);
  });

  it('rejects every entry when the exchange refuses the whole request', async () => {
    const h = harness({ port: { fate: () => 'refuse' } });
    h.ex.submitPlacement(placement(BTC, 1));
    h.ex.endOfTick();
    await runUntilEmpty(h);
    expect(h.events.at(-1)).toMatchObject({ kind: 'OrderRejected', code: '40017' });
    expect(h.port.requests).toHaveLength(1);
  });

  it('requeues a placement refused with 429 after the back-off, without a second OrderSubmitted', async () => {
    let first = true;
    const h = harness({
      port: {
        fate: () => {
          if (!first) return 'accept';
          first = false;
          return 'rateLimited';
        },
      },
    });
    h.ex.submitPlacement(placement(BTC, 1));
    h.ex.endOfTick();
    const t0 = h.vt.now();
    await runUntilEmpty(h);
    expect(h.port.requests.map((r) => r.fate)).toEqual(['rateLimited', 'accept']);
    expect(h.port.requests[1]!.at - t0).toBeGreaterThanOrEqual(1_000);
    expect(eventsOf(h.events, oid(1))).toEqual(['OrderSubmitted', 'OrderAccepted']);
    expect(h.ex.metrics().rateLimited).toBe(1);
    expect(h.ex.budgetUsage().factor).toBeLessThan(1);
  });

  it('retries a placement that never reached the exchange, then gives up', async () => {
    const h = harness({ port: { fate: () => 'transport' }, executor: { maxAttempts: 3, retryDelayMs: 500 } });
    h.ex.submitPlacement(placement(BTC, 1));
    h.ex.endOfTick();
    await runUntilEmpty(h);
    expect(h.port.requests).toHaveLength(3);
    expect(eventsOf(h.events, oid(1))).toEqual(['OrderSubmitted', 'OrderRejected']);
    expect(h.events.at(-1)).toMatchObject({ code: 'TRANSPORT' });
  });
});

/** UID weight 12 a window: one batch of placements (10), or one history read (10), per window. */
const ONE_BATCH_PER_WINDOW = {
  uidWeightPerWindow: 12,
  ipWeightPerWindow: 1000,
  safetyMargin: 1,
  minFactor: 1,
} as const;

describe('executor: cancels, reads and priority', () => {
  it('cancels one per order; "order does not exist" becomes CancelRejected 50005', async () => {
    const h = harness();
    h.ex.submitPlacement(placement(BTC, 1));
    h.ex.endOfTick();
    await runUntilEmpty(h);
    h.ex.submitCancel({ symbol: BTC, clientOid: oid(1) });
    h.ex.submitCancel({ symbol: BTC, clientOid: oid(1) }); // deduplicated while queued
    h.ex.submitCancel({ symbol: BTC, clientOid: oid(9) });
    await runUntilEmpty(h);
    expect(h.port.requests.filter((r) => r.endpoint === 'cancelOrder')).toHaveLength(2);
    // `result: true` is the venue taking the cancel, not the order's end (history confirms that).
    expect(eventsOf(h.events, oid(1))).toEqual(['OrderSubmitted', 'OrderAccepted', 'CancelAccepted']);
    expect(h.events.find((e) => e.clientOid === oid(9))).toMatchObject({
      kind: 'CancelRejected',
      code: '50005',
    });
  });

  it('spends the budget on cancels first, then reads, then placements', async () => {
    // A budget so small that only one batch fits per window: everything else waits, then goes by priority.
    const h = harness({ budget: ONE_BATCH_PER_WINDOW });
    h.ex.submitPlacement(placement(BTC, 1));
    h.ex.submitPlacement(placement(BTC, 2));
    h.ex.endOfTick();
    await h.ex.idle();
    h.ex.submitPlacement(placement(ETH, 3));
    h.ex.submitPlacement(placement(ETH, 4));
    h.ex.endOfTick();
    const read = h.ex.read('fills', () => h.port.fills({}));
    h.ex.submitCancel({ symbol: BTC, clientOid: oid(1) });
    await runUntilEmpty(h);
    await read;
    expect(h.port.requests.map((r) => r.endpoint)).toEqual([
      'batchOrders',
      'cancelOrder',
      'fills',
      'batchOrders',
    ]);
  });

  it('retries a read after a 429 and resolves it', async () => {
    let n = 0;
    const h = harness({
      port: { fate: (r) => (r.endpoint === 'history' && n++ === 0 ? 'rateLimited' : 'accept') },
    });
    const result = h.ex.read('history', () => h.port.history({}));
    await runUntilEmpty(h);
    await expect(result).resolves.toEqual([]);
    expect(h.port.requests.map((r) => r.fate)).toEqual(['rateLimited', 'accept']);
  });

  it('takes budget for a request sent elsewhere (the ticker poller gate)', async () => {
    const h = harness();
    for (let i = 0; i < 25; i++) void h.ex.acquire('tickers');
    await runUntilEmpty(h);
    // 22 polls of weight 40 fit the 900 IP budget; the rest waited for the window to roll.
    expect(h.ex.metrics().weightUsed.ip).toBe(25 * 40);
    expect(h.vt.now() - 1_000_000).toBeGreaterThanOrEqual(10_000);
  });

  it('sends a read before read() returns when nothing is queued and the budget grants it', async () => {
    const h = harness();
    const result = h.ex.read('history', () => h.port.history({}));
    // No turn of the event loop: the request left inside the call, as p-queue would start it.
    expect(h.port.requests.map((r) => r.endpoint)).toEqual(['history']);
    expect(h.ex.metrics().requestsByEndpoint).toMatchObject({ history: 1 });
    await runUntilEmpty(h);
    await expect(result).resolves.toEqual([]);
  });

  it('queues a read the budget cannot grant now, and sends it once the window rolls', async () => {
    // Room for one history read per window: the second must wait for the next one.
    const h = harness({ budget: ONE_BATCH_PER_WINDOW });
    const t0 = h.vt.now();
    const first = h.ex.read('history', () => h.port.history({}));
    const second = h.ex.read('history', () => h.port.history({}));
    expect(h.port.requests).toHaveLength(1);
    await runUntilEmpty(h);
    await Promise.all([first, second]);
    expect(h.port.requests.map((r) => r.endpoint)).toEqual(['history', 'history']);
    expect(h.vt.now() - t0).toBeGreaterThanOrEqual(1000);
  });

  it('queues a read behind work already queued, whatever the budget', async () => {
    const h = harness({ budget: ONE_BATCH_PER_WINDOW });
    h.ex.submitPlacement(placement(BTC, 1));
    h.ex.submitPlacement(placement(BTC, 2));
    h.ex.endOfTick();
    h.ex.submitPlacement(placement(ETH, 3));
    h.ex.submitPlacement(placement(ETH, 4));
    h.ex.endOfTick();
    // The first batch took the window; the second is queued: a read now goes through the queue
    // (ahead of the placement, by priority) instead of being sent at once.
    const read = h.ex.read('fills', () => h.port.fills({}));
    expect(h.port.requests.map((r) => r.endpoint)).toEqual(['batchOrders']);
    await runUntilEmpty(h);
    await read;
    expect(h.port.requests.map((r) => r.endpoint)).toEqual(['batchOrders', 'fills', 'batchOrders']);
  });

  it('refuses to run a placement endpoint as a read', () => {
    const h = harness();
    expect(() => h.ex.read('batchOrders', () => Promise.resolve(1))).toThrow(RangeError);
  });
});

describe('executor: budget', () => {
  it('never sends more weight than the budget in any window, and fills batches under pressure', async () => {
    const h = harness();
    // 60 ticks of 30 placements on two symbols: far more than the UID budget (900 per 10 s) allows.
    let n = 0;
    for (let tick = 0; tick < 60; tick++) {
      for (let i = 0; i < 30; i++) h.ex.submitPlacement(placement(i % 2 === 0 ? BTC : ETH, ++n));
      h.ex.endOfTick();
      await h.ex.idle();
      await h.vt.advanceTo(h.vt.now() + 100);
    }
    await runUntilEmpty(h);
    expect(h.port.maxUidWeight()).toBeLessThanOrEqual(900);
    expect(h.port.maxIpWeight()).toBeLessThanOrEqual(900);
    const batches = h.port.requests.filter((r) => r.endpoint === 'batchOrders');
    expect(batches.reduce((s, r) => s + r.ids.length, 0)).toBe(1800);
    expect(batches.every((b) => b.ids.length <= 20)).toBe(true);
    // While the budget lasts each tick leaves at once (15 per symbol); once it is spent the backlog
    // goes out in full batches.
    const sizes = batches.map((b) => b.ids.length);
    expect(sizes.slice(0, 90)).toEqual(Array<number>(90).fill(15));
    expect(sizes.slice(90, -2)).toEqual(Array<number>(sizes.length - 92).fill(20));
    expect(h.ex.metrics().weightUsed.uid).toBe(batches.length * ENDPOINTS.batchOrders.uidWeight);
  });

  it('keeps place and cancel requests under 10 per second', async () => {
    const h = harness();
    for (let i = 1; i <= 30; i++) {
      h.ex.submitPlacement(placement(i % 2 ? BTC : ETH, i));
      h.ex.endOfTick();
      await runUntilEmpty(h);
    }
    for (let i = 1; i <= 30; i++) h.ex.submitCancel({ symbol: i % 2 ? BTC : ETH, clientOid: oid(i) });
    await runUntilEmpty(h);
    expect(h.port.maxOrderRate()).toBeLessThanOrEqual(10);
    expect(h.port.requests.filter((r) => r.endpoint === 'cancelOrder')).toHaveLength(30);
  });
});

describe('executor: withdraw, supersede, drain', () => {
  it('withdraws a placement that has not left yet', async () => {
    const h = harness();
    h.ex.submitPlacement(placement(BTC, 1));
    h.ex.submitPlacement(placement(BTC, 2));
    expect(h.ex.withdraw(oid(1))).toBe(true);
    h.ex.endOfTick();
    await runUntilEmpty(h);
    expect(h.ex.withdraw(oid(2))).toBe(false);
    expect(h.port.requests.map((r) => r.ids)).toEqual([[oid(2)]]);
    expect(eventsOf(h.events, oid(1))).toEqual([]);
  });

  it('supersedes queued tagged placements by newer ones of the same strategy, symbol and tag', async () => {
    const h = harness({ executor: { supersede: true } });
    h.ex.submitPlacement(placement(BTC, 1, { tag: 'bid' }));
    h.ex.submitPlacement(placement(BTC, 2, { tag: 'bid' }));
    h.ex.submitPlacement(placement(BTC, 3));
    h.ex.endOfTick();
    await runUntilEmpty(h);
    expect(h.events.find((e) => e.clientOid === oid(1))).toMatchObject({
      kind: 'OrderRejected',
      code: 'SUPERSEDED',
    });
    expect(h.port.requests.flatMap((r) => r.ids)).toEqual([oid(2), oid(3)]);
    expect(h.ex.metrics().superseded).toBe(1);
  });

  it('drains until the deadline, then rejects what never left as NOT_SENT', async () => {
    const h = harness({ budget: ONE_BATCH_PER_WINDOW });
    h.ex.submitPlacement(placement(BTC, 1));
    h.ex.submitPlacement(placement(BTC, 2));
    h.ex.endOfTick();
    await h.ex.idle();
    h.ex.submitPlacement(placement(ETH, 3));
    const drained = h.ex.drain(1_000);
    await h.vt.runAll();
    const left = await drained;
    expect(left.placements).toBe(1);
    expect(h.events.find((e) => e.clientOid === oid(3))).toMatchObject({
      kind: 'OrderRejected',
      code: 'NOT_SENT',
    });
    expect(h.port.requests).toHaveLength(1);
  });
});

describe('executor: stop', () => {
  it('settles reads still waiting for budget when it stops (regression: they used to wait forever)', async () => {
    // An IP budget of two tickers reads (weight 40 each): the third read waits for the window.
    const h = harness({ budget: { ipWeightPerWindow: 80, uidWeightPerWindow: 1000, safetyMargin: 1 } });
    const sent = [
      h.ex.read('tickers', () => Promise.resolve(1)),
      h.ex.read('tickers', () => Promise.resolve(2)),
    ];
    // The third read parks in the dispatcher; the fourth waits in the p-queue behind it.
    const waiting = h.ex.read('tickers', () => Promise.resolve(3));
    const queued = h.ex.read('fills', () => Promise.resolve(5));
    expect(await Promise.all(sent)).toEqual([1, 2]);
    h.ex.stop();
    await expect(waiting).rejects.toBeInstanceOf(TransportError);
    await expect(queued).rejects.toBeInstanceOf(TransportError);
    await expect(h.ex.read('history', () => Promise.resolve(4))).rejects.toBeInstanceOf(TransportError);
  });
});

describe('executor: reads charged without sending (backtest round shortcut)', () => {
  it('takes the weight and counts the requests when the executor has no work and the budget grants them', () => {
    const h = harness();
    expect(h.ex.unsent.charge(['fills', 'history'])).toBe(true);
    expect(h.ex.metrics().requestsByEndpoint).toEqual({ fills: 1, history: 1 });
    const w = h.ex.metrics().weightUsed;
    expect(w.ip).toBe(ENDPOINTS.fills.ipWeight + ENDPOINTS.history.ipWeight);
    expect(w.uid).toBe(ENDPOINTS.fills.uidWeight + ENDPOINTS.history.uidWeight);
    expect(h.port.requests).toHaveLength(0);
  });

  it('takes nothing while work is staged or queued: sending then could have waited', () => {
    const h = harness();
    h.ex.submitPlacement(placement(BTC, 1));
    expect(h.ex.unsent.charge(['fills'])).toBe(false);
    expect(h.ex.metrics()).toMatchObject({ requestsByEndpoint: {}, weightUsed: { ip: 0, uid: 0 } });
  });

  it('takes nothing unless the budget grants every read at once, or the venue refuses its share', () => {
    const h = harness({ budget: { ipWeightPerWindow: 100, uidWeightPerWindow: 100, safetyMargin: 1 } });
    const reads = Array.from({ length: 11 }, () => 'history' as const); // 110 > 100 in one window
    expect(h.ex.unsent.charge(reads)).toBe(false);
    expect(h.ex.metrics().weightUsed).toEqual({ ip: 0, uid: 0 });
    expect(h.ex.unsent.charge(['history'], () => false)).toBe(false);
    expect(h.ex.metrics().weightUsed).toEqual({ ip: 0, uid: 0 });
    expect(h.ex.unsent.charge(reads.slice(1))).toBe(true);
    expect(h.ex.metrics().weightUsed).toEqual({ ip: 100, uid: 100 });
  });

  it('charges slept rounds up to the first the budget refuses, and only those the venue took', () => {
    const h = harness({ budget: { ipWeightPerWindow: 100, uidWeightPerWindow: 100, safetyMargin: 1 } });
    const t0 = h.vt.now();
    // History weighs 10: rounds every second fill the 10 s window after ten; the eleventh is refused.
    const rounds = Array.from({ length: 14 }, (_, i) => ({
      at: t0 + i * 1_000,
      endpoints: ['history' as const],
    }));
    let offered = 0;
    expect(
      h.ex.unsent.chargeRounds(rounds, (granted) => {
        offered = granted.length;
        return 7; // the venue's own window took seven
      }),
    ).toBe(7);
    expect(offered).toBe(10);
    expect(h.ex.metrics().requestsByEndpoint).toEqual({ history: 7 });
    expect(h.ex.metrics().weightUsed).toEqual({ ip: 70, uid: 70 });
    // The rest, later, where the window has room again.
    const later = rounds.slice(7).map((r) => ({ ...r, at: r.at + 20_000 }));
    expect(h.ex.unsent.chargeRounds(later, (granted) => granted.length)).toBe(7);
    expect(h.ex.metrics().requestsByEndpoint).toEqual({ history: 14 });
  });
});
