import { describe, expect, it } from 'vitest';
import { DEFAULT_RISK_LIMITS, riskLimits } from '../../src/risk/index.ts';

describe('risk limits from config values', () => {
  it('parses decimal strings exactly and fills in defaults', () => {
    const l = riskLimits({ maxOrderNotional: '250.5', drawdownReducePct: '3' });
    expect(l.maxOrderNotional.eq('250.5')).toBe(true);
    expect(l.drawdownReducePct.eq(3)).toBe(true);
    expect(l.maxOpenOrders).toBe(DEFAULT_RISK_LIMITS.maxOpenOrders);
  });

  it('refuses inconsistent thresholds and bad counts', () => {
    expect(() => riskLimits({ drawdownReducePct: '20', drawdownHaltPct: '10' })).toThrow(RangeError);
    expect(() => riskLimits({ maxOpenOrders: 0 })).toThrow(RangeError);
    expect(() => riskLimits({ maxOrderNotional: 'ten' })).toThrow(RangeError);
  });
});
