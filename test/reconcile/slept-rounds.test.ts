// The rounds sleeping reconciliation loops slept through, merged in time order (round-shortcut.ts).
import { describe, expect, it } from 'vitest';
import type { PlanCursor } from '../../src/reconcile/plan-history-window.ts';
import { sleptRounds, type Loop } from '../../src/reconcile/round-shortcut.ts';

const INTERVAL: Record<Loop, number> = { fills: 3_000, history: 5_000, plans: 60_000 };
const READS = { fills: ['fills'], history: ['history'], plans: ['historyPlan'] } as const;

describe('slept rounds', () => {
  it('lists every round each loop slept through, merged in time order, fills before history at a tie', () => {
    const { rounds, blocked } = sleptRounds(
      [
        { loop: 'history', due: 1_000 },
        { loop: 'fills', due: 1_000 },
      ],
      16_000,
      (loop) => ({ endpoints: READS[loop] }),
      (loop) => INTERVAL[loop],
    );
    expect(blocked.size).toBe(0);
    expect(rounds.map((r) => `${r.loop}@${r.at}`)).toEqual([
      'fills@1000',
      'history@1000',
      'fills@4000',
      'history@6000',
      'fills@7000',
      'fills@10000',
      'history@11000',
      'fills@13000',
      'fills@16000',
      'history@16000',
    ]);
    expect(rounds.at(-1)).toMatchObject({ loop: 'history', next: 21_000 });
  });

  it('follows the interval as it changes with time (fast, then idle)', () => {
    const { rounds } = sleptRounds(
      [{ loop: 'fills', due: 0 }],
      20_000,
      () => ({ endpoints: READS.fills }),
      (_, at) => (at < 5_000 ? 2_000 : 10_000),
    );
    expect(rounds.map((r) => r.at)).toEqual([0, 2_000, 4_000, 6_000, 16_000]);
  });

  it('chains the plan cursor from round to round', () => {
    const seen: (PlanCursor | undefined)[] = [];
    const { rounds } = sleptRounds(
      [{ loop: 'plans', due: 0 }],
      120_000,
      (_, at, cursor) => {
        seen.push(cursor);
        return { endpoints: READS.plans, planCursor: { cmt_btcusdt: at } };
      },
      () => INTERVAL.plans,
    );
    expect(seen).toEqual([undefined, { cmt_btcusdt: 0 }, { cmt_btcusdt: 60_000 }]);
    expect(rounds.map((r) => r.planCursor)).toEqual([
      { cmt_btcusdt: 0 },
      { cmt_btcusdt: 60_000 },
      { cmt_btcusdt: 120_000 },
    ]);
  });

  it('a loop whose reads are not known is blocked (it runs its round for real); the others go on', () => {
    const { rounds, blocked } = sleptRounds(
      [
        { loop: 'fills', due: 0 },
        { loop: 'history', due: 0 },
      ],
      6_000,
      (loop) => (loop === 'history' ? undefined : { endpoints: READS.fills }),
      (loop) => INTERVAL[loop],
    );
    expect([...blocked]).toEqual(['history']);
    expect(rounds.map((r) => r.at)).toEqual([0, 3_000, 6_000]);
  });

  it('nothing due yet: no round', () => {
    const { rounds, blocked } = sleptRounds(
      [{ loop: 'fills', due: 5_000 }],
      4_999,
      () => ({ endpoints: READS.fills }),
      () => 1_000,
    );
    expect(rounds).toEqual([]);
    expect(blocked.size).toBe(0);
  });
});
