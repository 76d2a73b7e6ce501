import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../../src/core/endpoints.ts';
import { WeightLimiter } from '../../../src/exchange/sim/weights.ts';

describe('weight limiter', () => {
  it('rolling 10 s IP window: refuses past the budget, frees weight as it ages, charges nothing when refusing', () => {
    const l = new WeightLimiter({ ipWeightPerWindow: 100 });
    expect(l.charge(0, ENDPOINTS.tickers, 'ip', undefined).ok).toBe(true); // 40
    expect(l.charge(5000, ENDPOINTS.tickers, 'ip', undefined).ok).toBe(true); // 80
    const r = l.charge(6000, ENDPOINTS.tickers, 'ip', undefined);
    expect(r).toEqual({ ok: false, scope: 'ip', retryAfterMs: 4001 });
    expect(l.usage(6000).ip['ip']).toBe(80);
    expect(l.charge(6000, ENDPOINTS.time, 'ip', undefined).ok).toBe(true); // 81
    expect(l.charge(10_000, ENDPOINTS.tickers, 'ip', undefined).ok).toBe(true); // first one expired: 41 + 40
    expect(l.usage(10_000).ip['ip']).toBe(81);
    expect(l.charge(10_000, ENDPOINTS.tickers, 'other-ip', undefined).ok).toBe(true);
  });

  it('UID window counts only signed endpoints, independently of the IP window', () => {
    const l = new WeightLimiter({ uidWeightPerWindow: 20 });
    expect(l.charge(0, ENDPOINTS.history, 'a', 'u').ok).toBe(true);
    expect(l.charge(0, ENDPOINTS.history, 'b', 'u').ok).toBe(true);
    expect(l.charge(0, ENDPOINTS.history, 'c', 'u')).toMatchObject({ ok: false, scope: 'uid' });
    expect(l.charge(0, ENDPOINTS.tickers, 'c', undefined).ok).toBe(true);
  });

  it('at most N placeOrder/cancel_order requests per rolling second', () => {
    const l = new WeightLimiter({ orderRequestsPerSecond: 3 });
    for (let i = 0; i < 2; i++) expect(l.charge(i, ENDPOINTS.placeOrder, 'ip', 'u').ok).toBe(true);
    expect(l.charge(500, ENDPOINTS.cancelOrder, 'ip', 'u').ok).toBe(true);
    expect(l.charge(900, ENDPOINTS.placeOrder, 'ip', 'u')).toEqual({
      ok: false,
      scope: 'orderRate',
      retryAfterMs: 101,
    });
    expect(l.charge(900, ENDPOINTS.batchOrders, 'ip', 'u').ok).toBe(true);
    expect(l.charge(1000, ENDPOINTS.placeOrder, 'ip', 'u').ok).toBe(true);
  });
});
