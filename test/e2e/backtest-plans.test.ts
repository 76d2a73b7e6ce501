// End to end: `npm start`'s backtest (config/month.yaml: ema-cross with `stopOnExchange` over the
// bundled FTX month) places its stops as plan orders through the real engine and the in-process
// simulator, in virtual time: report.json counts them (summary.planOrders), some fire on the bundled
// month, flips cancel the old leg's stop, each fired stop's fill carries the trigger
// price in fills.csv, and the fill is at or through the trigger (a market stop of a long sells at or
// below it). Two runs give the same bytes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { runCli, tempDir, type Done } from '../ops/helpers.ts';

function backtest(out: string): Promise<Done> {
  return runCli(['backtest', '--config', 'config/month.yaml', '--out', out]);
}

interface PlanCounts {
  placed: number;
  triggered: number;
  canceled: number;
  rejected: number;
}

describe('backtest with exchange-side stops (config/month.yaml, npm start)', () => {
  const tmp = tempDir('capibot-plans-');
  let first: Done;
  let second: Done;

  beforeAll(async () => {
    [first, second] = await Promise.all([backtest(join(tmp, 'a')), backtest(join(tmp, 'b'))]);
  }, 60_000);

  it('counts the plan orders, and a stop fires on the bundled data', () => {
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(tmp, 'a', 'report.json'), 'utf8')) as {
      summary: { planOrders: PlanCounts; requestsByEndpoint: Record<string, number> };
    };
    const plans = report.summary.planOrders;
    expect(plans.placed).toBeGreaterThan(0);
    expect(plans.triggered).toBeGreaterThan(0);
    expect(plans.canceled).toBeGreaterThan(0); // a flip cancels the stop of the leg it closes
    expect(plans.triggered + plans.canceled + plans.rejected).toBeLessThanOrEqual(plans.placed);
    // Sent as plan_order, one request per plan.
    expect(report.summary.requestsByEndpoint['planOrder']).toBe(plans.placed);
    expect(first.stdout).toMatch(/Plan orders \(stops, targets\)\s+\d+ placed, [1-9]\d* triggered/);
  });

  it('marks the fills of fired stops with their trigger price, at or through the trigger', () => {
    const lines = readFileSync(join(tmp, 'a', 'fills.csv'), 'utf8')
      .trim()
      .split('\r\n');
    const header = lines[0]!.split(',');
    const col = (name: string) => header.indexOf(name);
    const rows = lines.slice(1).map((l) => l.split(','));
    const stops = rows.filter((r) => r[col('triggerPrice')] !== '');
    expect(stops.length).toBeGreaterThan(0);
    for (const r of stops) {
      const side = r[col('side')];
      const price = dec(r[col('price')]!);
      const trigger = dec(r[col('triggerPrice')]!);
      expect(side === 'close_long' || side === 'close_short').toBe(true);
      if (side === 'close_long') expect(price.lte(trigger)).toBe(true);
      else expect(price.gte(trigger)).toBe(true);
    }
  });

  it('is deterministic', () => {
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(join(tmp, 'b', 'report.json'), 'utf8')).toBe(
      readFileSync(join(tmp, 'a', 'report.json'), 'utf8'),
    );
  });
});
