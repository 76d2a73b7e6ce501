// The fill cells of the transition table (evidence of quantity before any cancel), the shape of an
// invalid transition, and the default facts.
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import type { OrderEvent } from '../../src/core/events.ts';
import { clientOid, orderId, symbolId, tradeId } from '../../src/core/ids.ts';
import { transition, type TransitionFacts } from '../../src/core/order-transitions.ts';

const base = { clientOid: clientOid('cb-t-1'), at: 0 };
const progress = (qty: string): OrderEvent => ({
  ...base,
  kind: 'OrderProgress',
  orderId: orderId('1'),
  filledQty: dec(qty),
});
const filled: OrderEvent = {
  ...base,
  kind: 'OrderFilled',
  orderId: orderId('1'),
  tradeId: tradeId('t1'),
  fill: {
    tradeId: tradeId('t1'),
    orderId: orderId('1'),
    symbol: symbolId('cmt_btcusdt'),
    positionSide: 'LONG',
    orderSide: 'BUY',
    direction: 'OPEN_LONG',
    size: dec('1'),
    value: dec('100'),
    fee: dec('0'),
    realizedPnl: dec('0'),
    createdTime: 0,
  },
};
const PARTIAL: TransitionFacts = { acknowledged: true, complete: false };

describe('transition table: fills and progress on a live order', () => {
  it('progress with nothing filled only proves the order exists: pending, unless further along', () => {
    for (const s of ['created', 'submitted', 'unknown'] as const)
      expect(transition(s, progress('0'), PARTIAL)).toBe('pending');
    expect(transition('pending', progress('0'), PARTIAL)).toBe('pending');
    expect(transition('open', progress('0'), PARTIAL)).toBe('open');
  });

  it('a partial fill or progress above zero proves the order reached the book: open', () => {
    for (const s of ['created', 'submitted', 'unknown', 'pending', 'open'] as const) {
      expect(transition(s, progress('0.5'), PARTIAL)).toBe('open');
      expect(transition(s, filled, PARTIAL)).toBe('open');
    }
  });

  it('a partial fill or progress while canceling keeps canceling', () => {
    expect(transition('canceling', progress('0.5'), PARTIAL)).toBe('canceling');
    expect(transition('canceling', progress('0'), PARTIAL)).toBe('canceling');
  });
});

describe('transition table: invalid pairs and defaults', () => {
  it('describes an invalid transition by its status, event and a reason', () => {
    const lost: OrderEvent = { ...base, kind: 'OrderLost', reason: 'no trace' };
    expect(transition('open', lost, PARTIAL)).toEqual({
      kind: 'InvalidTransition',
      from: 'open',
      event: 'OrderLost',
      reason: expect.stringMatching(/\S/) as unknown,
    });
    expect(transition('created', { ...base, kind: 'CancelRequested' })).toMatchObject({
      kind: 'InvalidTransition',
      from: 'created',
      event: 'CancelRequested',
    });
  });

  it('without facts, an order is taken as neither acknowledged nor complete', () => {
    const refused: OrderEvent = { ...base, kind: 'CancelRejected', code: '1', reason: 'no' };
    expect(transition('canceling', refused)).toBe('unknown');
    expect(transition('canceling', { ...base, kind: 'OrderRejected', code: '1', reason: 'no' })).toBe(
      'rejected',
    );
    expect(transition('open', filled)).toBe('open');
    expect(transition('canceling', filled)).toBe('canceling');
  });
});
