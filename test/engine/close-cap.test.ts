// Close intents are capped by the position the venue will see (issue #18). The failure it prevents,
// seen once per run of the bundled market-maker: order history reports a close filled before its
// fills arrive; the strategy still sees the position, no close resting, and closes it again: the
// venue refuses that close (40015 "close larger than the closable position").
import { describe, expect, it } from 'vitest';
import { ZERO, dec } from '../../src/core/decimal.ts';
import type { OrderEvent } from '../../src/core/events.ts';
import { clientOid, tradeId } from '../../src/core/ids.ts';
import type { Intent } from '../../src/core/intents.ts';
import type { Order, OrderSide } from '../../src/core/orders.ts';
import type { StrategyContext } from '../../src/strategy/types.ts';
import { engineHarness, inlineStrategy, type EngineHarness } from '../helpers/engine-harness.ts';
import { ETH } from '../helpers/market.ts';

/** A strategy that places whatever the test queued for the next tick. */
function scripted() {
  const queue: ((ctx: StrategyContext) => Intent)[] = [];
  const definition = inlineStrategy(
    'scripted',
    (ctx) => ({ onTicker: () => queue.splice(0).map((make) => make(ctx)) }),
    [ETH],
  );
  const place = (side: OrderSide, size: string, price = '3400') =>
    queue.push((ctx) => ctx.place({ symbol: ETH, side, size, price, orderType: 'postOnly' }));
  return { definition, place };
}

let trades = 0;
/** Reconciliation's fill of `order` (all of `size`), as fills polling reports it. */
function filled(h: EngineHarness, order: Order, size: string): OrderEvent {
  const s = dec(size);
  const id = tradeId(`t${++trades}`);
  return {
    kind: 'OrderFilled',
    clientOid: order.clientOid,
    at: h.vt.now(),
    orderId: order.orderId!,
    tradeId: id,
    fill: {
      tradeId: id,
      orderId: order.orderId!,
      symbol: ETH,
      positionSide: order.side.endsWith('long') ? 'LONG' : 'SHORT',
      orderSide: order.side === 'open_long' || order.side === 'close_short' ? 'BUY' : 'SELL',
      direction: order.side.toUpperCase(),
      size: s,
      value: s.times(3400),
      fee: ZERO,
      realizedPnl: ZERO,
      createdTime: h.vt.now(),
    },
  };
}

/** Reconciliation's terminal row from order history: the order filled, its fills not read yet. */
function completed(h: EngineHarness, order: Order): OrderEvent {
  return { kind: 'OrderCompleted', clientOid: order.clientOid, at: h.vt.now(), filledQty: order.size };
}

/** The account's short leg on ETH, as folded from the fills seen. */
const shortOf = (h: EngineHarness): string => (h.engine.hedgePositions().get(ETH)?.short ?? ZERO).toFixed();
const get = (h: EngineHarness, oid: string): Order => h.store.getOrder(clientOid(oid))!;
const placements = (h: EngineHarness) =>
  h.port.requests.filter((r) => r.endpoint === 'placeOrder' || r.endpoint === 'batchOrders');

/** A short position of 0.06 ETH (one open_short filled), through the engine. */
async function shortPosition() {
  const s = scripted();
  const h = engineHarness({ strategies: [{ id: 'mm', definition: s.definition }] });
  h.engine.start();
  s.place('open_short', '0.06', '3401');
  await h.tick({ [ETH]: '3400' });
  const open = get(h, 'cb-mm-1');
  h.engine.applyOrderEvents([filled(h, open, '0.06')]);
  expect(shortOf(h)).toBe('0.06');
  return { h, s };
}

describe('close cap: a close never exceeds the position the venue will see', () => {
  it('drops a close of a position whose closing fill history reported but fills did not bring yet (the 40015)', async () => {
    const { h, s } = await shortPosition();
    s.place('close_short', '0.06');
    await h.tick({ [ETH]: '3400' });
    const close = get(h, 'cb-mm-2');
    expect(close).toMatchObject({ side: 'close_short', status: 'pending' });
    // History: the close filled. Fills polling has not brought its fill: the position still reads 0.06.
    h.engine.applyOrderEvents([completed(h, close)]);
    expect(get(h, 'cb-mm-2').status).toBe('filled');
    expect(shortOf(h)).toBe('0.06');
    const sent = placements(h).length;

    // The strategy, seeing a short and no close resting, closes it again.
    s.place('close_short', '0.06');
    await h.tick({ [ETH]: '3400' });
    // Before the cap this order was sent and the venue refused it (40015). Now it never leaves.
    expect(placements(h)).toHaveLength(sent);
    expect(h.store.getOrder(clientOid('cb-mm-3'))).toBeUndefined();
    expect(h.events.at(-1)).toMatchObject({
      kind: 'RiskRefused',
      strategy: 'mm',
      reason: 'closable_size',
      detail: expect.stringContaining('leaves 0 to close') as unknown,
    });
    expect(h.engine.metrics().rejectionsByReason).toEqual({ closable_size: 1 });
    expect(h.store.journal.at(-1)).toMatchObject({ outcome: 'refused:closable_size' });

    // The fill arrives: the position is flat, nothing is in transit, a close of nothing stays refused.
    h.engine.applyOrderEvents([filled(h, get(h, 'cb-mm-2'), '0.06')]);
    expect(shortOf(h)).toBe('0');
    s.place('open_short', '0.02', '3401');
    await h.tick({ [ETH]: '3400' });
    h.engine.applyOrderEvents([filled(h, get(h, 'cb-mm-3'), '0.02')]);
    // Its fill seen, the finished close holds nothing any more: a close of the new 0.02 goes in full.
    s.place('close_short', '0.02');
    await h.tick({ [ETH]: '3400' });
    expect(get(h, 'cb-mm-4')).toMatchObject({ side: 'close_short', size: dec('0.02') });
  });

  it('shrinks a close to what the resting closes leave, rounded down to the size step', async () => {
    const { h, s } = await shortPosition();
    s.place('close_short', '0.04');
    s.place('close_short', '0.04'); // the two together exceed the position
    await h.tick({ [ETH]: '3400' });
    expect(get(h, 'cb-mm-2').size.toFixed()).toBe('0.04');
    expect(get(h, 'cb-mm-3').size.toFixed()).toBe('0.02');
    const capped = h.events.filter((e) => e.kind === 'CloseCapped');
    expect(capped).toEqual([
      expect.objectContaining({ strategy: 'mm', size: dec('0.02'), closable: dec('0.02') }),
    ]);
    expect(capped[0]).toMatchObject({ intent: { size: dec('0.04') } });
    expect(h.engine.metrics().closesCapped).toBe(1);
    expect(h.engine.metrics().rejectionsByReason).toEqual({});
    // Part of a resting close filled and seen: it holds only the rest, the position shrank alike.
    h.engine.applyOrderEvents([filled(h, get(h, 'cb-mm-2'), '0.01')]);
    s.place('close_short', '0.05');
    await h.tick({ [ETH]: '3400' });
    expect(h.engine.metrics().rejectionsByReason).toEqual({ closable_size: 1 });
  });

  it('frees the unfilled rest of a close being canceled (cancels go first), but not what it filled', async () => {
    const { h, s } = await shortPosition();
    s.place('close_short', '0.06');
    await h.tick({ [ETH]: '3400' });
    const resting = get(h, 'cb-mm-2');
    expect(h.engine.cancelAll()).toEqual({ local: 0, requested: 1 });
    await h.settle();
    expect(get(h, 'cb-mm-2').status).toBe('canceling');
    // History shows 0.02 of it filled while canceling (its fill not read yet): 0.04 may be closed.
    h.engine.applyOrderEvents([
      {
        kind: 'OrderProgress',
        clientOid: resting.clientOid,
        at: h.vt.now(),
        orderId: resting.orderId!,
        filledQty: dec('0.02'),
      },
    ]);
    s.place('close_short', '0.06');
    await h.tick({ [ETH]: '3400' });
    expect(get(h, 'cb-mm-3').size.toFixed()).toBe('0.04');
  });

  it('leaves opening intents and closes that fit untouched', async () => {
    const { h, s } = await shortPosition();
    s.place('close_short', '0.03');
    s.place('close_short', '0.03');
    s.place('open_long', '0.05', '3399');
    await h.tick({ [ETH]: '3400' });
    expect(['cb-mm-2', 'cb-mm-3', 'cb-mm-4'].map((o) => get(h, o).size.toFixed())).toEqual([
      '0.03',
      '0.03',
      '0.05',
    ]);
    expect(h.events.some((e) => e.kind === 'CloseCapped')).toBe(false);
  });
});
