import { describe, expect, it } from 'vitest';
import { ResultCollector } from '../../../../src/backtest/sweep/queue/collector.ts';
import type { SweepReply } from '../../../../src/backtest/sweep/protocol.ts';

const failed = (index: number, message = 'x'): SweepReply => ({
  kind: 'failed',
  index,
  message,
  exitCode: 1,
});

describe('ResultCollector', () => {
  it('counts the first reply of each expected point once, in grid order', () => {
    const c = new ResultCollector([1, 2, 3]);
    expect(c.accept(failed(2, 'first'))).toBe(true);
    expect(c.accept(failed(2, 'again'))).toBe(false);
    expect(c.accept(failed(9))).toBe(false);
    expect(c.missing()).toEqual([1, 3]);
    expect(c.complete).toBe(false);
    c.accept(failed(3));
    c.accept(failed(1));
    expect(c.complete).toBe(true);
    expect(c.done).toBe(3);
    expect(c.replies().map((r) => [r.index, r.kind === 'failed' ? r.message : ''])).toEqual([
      [1, 'x'],
      [2, 'first'],
      [3, 'x'],
    ]);
  });
});
