import { describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { ContractTable } from '../../../src/exchange/sim/contracts.ts';
import { MatchingCore } from '../../../src/exchange/sim/matching.ts';
import { historyRowToWire } from '../../../src/exchange/sim/wire.ts';
import { req, ticker } from './helpers.ts';

const BTC = 'cmt_btcusdt';

function core(cfg: ConstructorParameters<typeof MatchingCore>[0] = {}): MatchingCore {
  const c = new MatchingCore({ seed: 7, ...cfg });
  c.applyTickers(1000, [ticker(BTC, '100.0', '100.2', '100.1')]);
  return c;
}

function placed(c: MatchingCore, now: number, r: ReturnType<typeof req>, symbol = BTC) {
  const res = c.place(now, symbol, r);
  if (!res.ok) throw new Error(`rejected: ${res.reject.code} ${res.reject.msg}`);
  return res.order;
}

describe('matching core: arrival', () => {
  it('a marketable limit order fills at once as taker at the opposite best price', () => {
    const c = core();
    const o = placed(c, 1001, req('a', 'open_long', '0.01', '101.0'));
    expect(o.status).toBe('filled');
    const [f] = c.fills();
    expect(f?.price.toFixed()).toBe('100.2');
    expect(f?.liquidity).toBe('TAKER');
    expect(f?.value.toFixed()).toBe('1.002');
    expect(f?.fee.toFixed()).toBe(dec('1.002').times('0.0008').toFixed());
    expect(f?.createdTime).toBe(1001);
    expect(c.position(BTC).long.qty.toFixed()).toBe('0.01');
  });

  it('a non-marketable limit order rests open', () => {
    const c = core();
    const o = placed(c, 1001, req('a', 'open_long', '0.01', '99.0'));
    expect(o.status).toBe('open');
    expect(c.fills()).toHaveLength(0);
  });

  it('post-only that would take is canceled without a fill; post-only that rests stays open', () => {
    const c = core();
    expect(placed(c, 1001, req('a', 'open_long', '0.01', '100.2', 'postOnly')).status).toBe('canceled');
    expect(placed(c, 1001, req('b', 'open_long', '0.01', '100.1', 'postOnly')).status).toBe('open');
    expect(c.fills()).toHaveLength(0);
  });

  it('market orders fill at the opposite best ± slippage and are recorded as ioc with price 0.0', () => {
    const c = core({ slippageBps: dec(10) });
    const buy = placed(c, 1001, req('m1', 'open_long', '0.01'));
    expect(buy.orderType).toBe('ioc');
    expect(buy.status).toBe('filled');
    // 100.2 × 1.001 = 100.3002 → rounded up to the tick: 100.4
    expect(c.fills()[0]?.price.toFixed()).toBe('100.4');
    const sell = placed(c, 1001, req('m2', 'close_long', '0.01'));
    // 100.0 × 0.999 = 99.9 exactly
    expect(c.fills()[1]?.price.toFixed()).toBe('99.9');
    expect(sell.status).toBe('filled');
    const row = historyRowToWire(buy, c.contracts);
    expect(row.price).toBe('0.0');
    expect(row.order_type).toBe('ioc');
  });

  it('a market order with no market data for its symbol is canceled', () => {
    const c = new MatchingCore();
    const o = placed(c, 1, req('m', 'open_long', '0.001'), 'cmt_ethusdt');
    expect(o.status).toBe('canceled');
    expect(o.filledQty.toFixed()).toBe('0');
  });
});

describe('matching core: resting orders and fill models', () => {
  it('through: the opposite best must cross the limit by one tick', () => {
    const c = core();
    const o = placed(c, 1001, req('a', 'open_long', '0.01', '99.5'));
    c.applyTickers(2000, [ticker(BTC, '99.3', '99.5')]);
    expect(c.order(o.orderId)?.status).toBe('open');
    c.applyTickers(3000, [ticker(BTC, '99.2', '99.4')]);
    const after = c.order(o.orderId);
    expect(after?.status).toBe('filled');
    const f = c.fills()[0];
    expect(f?.price.toFixed()).toBe('99.5');
    expect(f?.liquidity).toBe('MAKER');
    expect(f?.fee.toFixed()).toBe(dec('0.995').times('0.0002').toFixed());
    expect(f?.createdTime).toBe(3000);
  });

  it('touch: reaching the limit is enough', () => {
    const c = core({ fillModel: 'touch' });
    const o = placed(c, 1001, req('a', 'open_short', '0.01', '101.0'));
    c.applyTickers(2000, [ticker(BTC, '101.0', '101.2')]);
    expect(c.order(o.orderId)?.status).toBe('filled');
  });

  it('a liquidity cap fills a large order partially over several snapshots', () => {
    const c = core({ liquidityPerSnapshot: dec('0.004') });
    const o = placed(c, 1001, req('a', 'open_long', '0.01', '101.0'));
    expect(o.status).toBe('open');
    expect(o.filledQty.toFixed()).toBe('0.004');
    c.applyTickers(2000, [ticker(BTC, '100.0', '100.2')]);
    expect(c.order(o.orderId)?.filledQty.toFixed()).toBe('0.008');
    c.applyTickers(3000, [ticker(BTC, '100.0', '100.3')]);
    const done = c.order(o.orderId);
    expect(done?.status).toBe('filled');
    expect(c.fills().map((f) => [f.size.toFixed(), f.liquidity])).toEqual([
      ['0.004', 'TAKER'],
      ['0.004', 'TAKER'],
      ['0.002', 'TAKER'],
    ]);
  });

  it('ioc fills what it can and cancels the rest; fok fills entirely or not at all', () => {
    const c = core({ liquidityPerSnapshot: dec('0.004') });
    const ioc = placed(c, 1001, req('i', 'open_long', '0.01', '101.0', 'ioc'));
    expect(ioc.status).toBe('canceled');
    expect(ioc.filledQty.toFixed()).toBe('0.004');
    c.applyTickers(2000, [ticker(BTC, '100.0', '100.2')]);
    const fok = placed(c, 2001, req('f', 'open_long', '0.01', '101.0', 'fok'));
    expect(fok.status).toBe('canceled');
    expect(fok.filledQty.toFixed()).toBe('0');
    const fok2 = placed(c, 2001, req('f2', 'open_long', '0.004', '101.0', 'fok'));
    expect(fok2.status).toBe('filled');
    const late = placed(c, 2001, req('i2', 'open_long', '0.01', '99.0', 'ioc'));
    expect(late.status).toBe('canceled');
    expect(late.filledQty.toFixed()).toBe('0');
  });
});

describe('matching core: validation (40015 like the live venue)', () => {
  it('size step, min and max size, price tick', () => {
    const c = core();
    const r1 = c.place(1001, BTC, req('a', 'open_long', '0.000114', '100.0'));
    expect(r1.ok).toBe(false);
    if (!r1.ok) {
      expect(r1.reject).toEqual({
        code: '40015',
        msg: "INVALID_ARGUMENT: The order size must be greater than 0 and matches the stepSize '0.0001' requirement. Current size is '0.000114'",
      });
    }
    const r2 = c.place(1001, BTC, req('b', 'open_long', '0.0001', '100.05'));
    expect(!r2.ok && r2.reject.msg).toContain("tickSize '0.1'");
    const r3 = c.place(1001, BTC, req('c', 'open_long', '5000', '100.0'));
    expect(!r3.ok && r3.reject.msg).toContain("maxOrderSize '1200'");
    const table = new ContractTable({ [BTC]: { minSize: '0.001' } });
    const c2 = new MatchingCore({ contracts: table });
    const r4 = c2.place(1, BTC, req('d', 'open_long', '0.0005', '100.0'));
    expect(!r4.ok && r4.reject.msg).toContain("minOrderSize '0.001'");
  });

  it('unknown symbols are refused with 40020; unknown-but-recorded symbols use the default rules', () => {
    const c = core();
    const r = c.place(1001, 'cmt_nopeusdt', req('a', 'open_long', '1'));
    expect(!r.ok && r.reject).toEqual({ code: '40020', msg: 'Parameter symbol is invalid' });
    c.applyTickers(2000, [ticker('cmt_dogeusdt', '0.1500', '0.1501')]);
    expect(c.place(2001, 'cmt_dogeusdt', req('b', 'open_long', '10', '0.1400')).ok).toBe(true);
  });

  it('a client_oid is unique among all the account orders, also finished ones', () => {
    const c = core();
    placed(c, 1001, req('dup', 'open_long', '0.01', '101.0'));
    const r = c.place(1002, BTC, req('dup', 'open_long', '0.01', '99.0'));
    expect(!r.ok && r.reject.code).toBe('40015');
    expect(!r.ok && r.reject.msg).toContain("client_oid 'dup'");
    const batch = c.placeBatch(1003, BTC, [
      req('x', 'open_long', '0.01', '99.0'),
      req('x', 'open_long', '0.01', '99.0'),
    ]);
    expect(batch.map((b) => b.ok)).toEqual([true, false]);
  });

  it('no closing more than held, counting the open close orders', () => {
    const c = core();
    placed(c, 1001, req('o', 'open_long', '0.01', '101.0'));
    expect(c.place(1002, BTC, req('c0', 'close_short', '0.001', '99.0')).ok).toBe(false);
    placed(c, 1002, req('c1', 'close_long', '0.006', '105.0'));
    const r = c.place(1003, BTC, req('c2', 'close_long', '0.005', '105.0'));
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.reject.code).toBe('40015');
      expect(r.reject.msg).toContain("closable long position size '0.004'");
    }
    expect(c.place(1003, BTC, req('c3', 'close_long', '0.004', '105.0')).ok).toBe(true);
  });

  it('preset take-profit and stop-loss must lie on the right side of the price', () => {
    const c = core();
    const bad = c.place(1001, BTC, {
      ...req('a', 'open_long', '0.01', '99.0'),
      presetTakeProfitPrice: dec('98.0'),
    });
    expect(!bad.ok && bad.reject.msg).toBe(
      'INVALID_ARGUMENT: The buy long order take profit param triggerPrice must be greater than price 99. Current order open tp param trigger price is 98',
    );
    const bad2 = c.place(1001, BTC, {
      ...req('b', 'open_short', '0.01', '101.0'),
      presetStopLossPrice: dec('100.0'),
    });
    expect(!bad2.ok && bad2.reject.msg).toContain('sell short order stop loss');
    const good = c.place(1001, BTC, {
      ...req('c', 'open_long', '0.01', '99.0'),
      presetTakeProfitPrice: dec('110.0'),
      presetStopLossPrice: dec('90.0'),
    });
    expect(good.ok).toBe(true);
  });
});

describe('matching core: positions and PnL', () => {
  it('long: average entry and realised PnL on close', () => {
    const c = core();
    placed(c, 1001, req('o1', 'open_long', '0.01', '101.0')); // at 100.2
    c.applyTickers(2000, [ticker(BTC, '102.0', '102.2')]);
    placed(c, 2001, req('o2', 'open_long', '0.01', '103.0')); // at 102.2
    expect(c.position(BTC).long.cost.toFixed()).toBe('2.024');
    c.applyTickers(3000, [ticker(BTC, '110.0', '110.1')]);
    placed(c, 3001, req('c1', 'close_long', '0.02', '109.0')); // at 110.0
    const close = c.fills().at(-1);
    expect(close?.realizedPnl.toFixed()).toBe('0.176'); // 2.2 − 2.024
    expect(c.position(BTC).long.qty.toFixed()).toBe('0');
    expect(c.order(close?.orderId ?? '')?.totalProfits.toFixed()).toBe('0.176');
  });

  it('short: profit when the price falls', () => {
    const c = core();
    placed(c, 1001, req('o', 'open_short', '0.01', '99.0')); // sells at bid 100.0
    c.applyTickers(2000, [ticker(BTC, '95.0', '95.1')]);
    placed(c, 2001, req('c', 'close_short', '0.004', '96.0')); // buys at ask 95.1
    expect(c.fills().at(-1)?.realizedPnl.toFixed()).toBe('0.0196'); // 0.004 × 4.9
    expect(c.position(BTC).short.qty.toFixed()).toBe('0.006');
  });
});

describe('matching core: statuses, cancels, time', () => {
  it('cancel: open → canceled; again or unknown → 50005; by client_oid; wrong symbol → 50005', () => {
    const c = core();
    const o = placed(c, 1001, req('a', 'open_long', '0.01', '99.0'));
    expect(c.cancel(1002, { symbol: 'cmt_ethusdt', orderId: o.orderId }).ok).toBe(false);
    const r = c.cancel(1002, { clientOid: 'a' });
    expect(r.ok && r.order.status).toBe('canceled');
    expect(c.cancel(1003, { orderId: o.orderId })).toEqual({
      ok: false,
      reject: { code: '50005', msg: 'Order does not exist' },
    });
    expect(c.cancel(1003, { orderId: '1' }).ok).toBe(false);
    c.applyTickers(2000, [ticker(BTC, '90.0', '90.1')]);
    expect(c.fills()).toHaveLength(0);
  });

  it('with a cancel delay the order is canceling, may still fill, then ends canceled (partially filled)', () => {
    const c = core({ cancelDelayMs: 500, liquidityPerSnapshot: dec('0.004') });
    const o = placed(c, 1001, req('a', 'open_long', '0.01', '99.0'));
    const r = c.cancel(1100, { orderId: o.orderId });
    expect(r.ok && r.order.status).toBe('canceling');
    c.applyTickers(1200, [ticker(BTC, '98.0', '98.1')]);
    expect(c.order(o.orderId)?.status).toBe('canceling');
    expect(c.order(o.orderId)?.filledQty.toFixed()).toBe('0.004');
    c.advanceTo(1600);
    expect(c.order(o.orderId)?.status).toBe('canceled');
    expect(c.order(o.orderId)?.filledQty.toFixed()).toBe('0.004');
    c.applyTickers(1700, [ticker(BTC, '98.0', '98.1')]);
    expect(c.fills()).toHaveLength(1);
  });

  it('with an accept delay the order is pending first, then matched', () => {
    const c = core({ acceptDelayMs: 300 });
    const o = placed(c, 1001, req('a', 'open_long', '0.01', '101.0'));
    expect(o.status).toBe('pending');
    c.advanceTo(1301);
    expect(c.order(o.orderId)?.status).toBe('filled');
    expect(c.fills()[0]?.createdTime).toBe(1301);
    const p = placed(c, 1400, req('b', 'open_long', '0.01', '99.0'));
    expect(c.cancel(1401, { orderId: p.orderId }).ok).toBe(true);
    expect(c.order(p.orderId)?.status).toBe('canceled');
  });

  it('ordersAsOf shows each order as it stood at a past time', () => {
    const c = core();
    const o = placed(c, 1001, req('a', 'open_long', '0.01', '99.5'));
    c.applyTickers(3000, [ticker(BTC, '99.0', '99.1')]);
    expect(c.order(o.orderId)?.status).toBe('filled');
    expect(c.ordersAsOf(2000).map((x) => x.status)).toEqual(['open']);
    expect(c.ordersAsOf(1000)).toEqual([]);
  });

  it('ids are 18-digit increasing strings, the same for the same seed', () => {
    const ids = (seed: number) => {
      const c = core({ seed });
      return [1, 2, 3].map((i) => placed(c, 1001, req(`o${i}`, 'open_long', '0.01', '99.0')).orderId);
    };
    const a = ids(5);
    expect(a.every((id) => /^\d{18}$/.test(id))).toBe(true);
    expect(BigInt(a[0]!) < BigInt(a[1]!) && BigInt(a[1]!) < BigInt(a[2]!)).toBe(true);
    expect(BigInt(a[0]!) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    expect(ids(5)).toEqual(a);
    expect(ids(6)).not.toEqual(a);
  });
});
