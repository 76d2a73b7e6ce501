// Plan rows as order rows (src/reconcile/plan-rows.ts): every plan status maps to what the kernel
// reads, and the row keeps the plan's ids, quantities and trigger price.
import { describe, expect, it } from 'vitest';
import { ZERO, dec } from '../../src/core/decimal.ts';
import { clientOid, orderId, symbolId } from '../../src/core/ids.ts';
import type { PlanReport, PlanStatus } from '../../src/core/reports.ts';
import { planRowsAsReports } from '../../src/reconcile/plan-rows.ts';

function plan(status: PlanStatus, over: Partial<PlanReport> = {}): PlanReport {
  return {
    symbol: symbolId('cmt_btcusdt'),
    orderId: orderId('710000000000000001'),
    clientOid: clientOid('cb-ema-3'),
    status,
    rawStatus: status,
    type: '3',
    side: 'close_long',
    orderType: '0',
    size: dec('0.5'),
    price: ZERO,
    triggerPrice: dec('59000'),
    createTime: 1_000,
    filledQty: ZERO,
    priceAvg: ZERO,
    fee: ZERO,
    ...over,
  };
}

describe('planRowsAsReports', () => {
  it('maps each plan status to the order-history status the kernel reads', () => {
    const rows = planRowsAsReports([
      plan('untriggered'),
      plan('untriggered', { triggerTime: 2_000 }),
      plan('triggered'),
      plan('partially_filled', { filledQty: dec('0.2') }),
      plan('filled', { filledQty: dec('0.5') }),
      plan('filled'),
      plan('canceled'),
      plan('unknown'),
    ]);
    expect(rows.map((r) => r.status)).toEqual([
      'untriggered',
      'pending', // fired: its trigger time says so
      'pending',
      'open',
      'filled',
      'pending', // "filled" without a quantity: the child's rows will say how much
      'canceled',
    ]);
  });

  it("keeps the plan's ids, side, quantities, prices and trigger price", () => {
    const [row] = planRowsAsReports([
      plan('filled', { filledQty: dec('0.5'), priceAvg: dec('58990'), fee: dec('0.1'), price: dec('58980') }),
    ]);
    expect(row).toMatchObject({
      symbol: 'cmt_btcusdt',
      orderId: '710000000000000001',
      clientOid: 'cb-ema-3',
      type: 'close_long',
      orderType: 'normal',
      createTime: 1_000,
    });
    expect(row?.filledQty.toFixed()).toBe('0.5');
    expect(row?.priceAvg.toFixed()).toBe('58990');
    expect(row?.fee.toFixed()).toBe('0.1');
    expect(row?.price.toFixed()).toBe('58980');
    expect(row?.size.toFixed()).toBe('0.5');
    expect(row?.totalProfits.toFixed()).toBe('0');
    expect(row?.triggerPrice?.toFixed()).toBe('59000');
  });

  it('keeps the raw type of a venue-made close (no side) and a row without client_oid', () => {
    const { clientOid: _c, side: _s, ...bare } = plan('canceled', { type: '9' });
    const [row] = planRowsAsReports([bare]);
    expect(row?.type).toBe('9');
    expect(row?.clientOid).toBeUndefined();
    expect('clientOid' in (row ?? {})).toBe(false);
  });
});
