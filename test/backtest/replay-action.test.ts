// Long replays reschedule periodic timers hundreds of thousands of times (a 1 s timer pulse over a
// month of data): VirtualTime must recycle those actions (no chain growing with virtual time, no
// stack overflow when unsubscribing) and keep the order of actions due at the same instant.
import { interval } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { VirtualTime } from '../../src/engine/virtual-time.ts';

describe('VirtualTime periodic timers', () => {
  it('runs an interval for 200 000 periods and unsubscribes it without overflowing the stack', async () => {
    const vt = new VirtualTime(0);
    let n = 0;
    const sub = interval(1_000, vt.scheduler).subscribe(() => n++);
    await vt.advanceTo(200_000_000, () => Promise.resolve());
    expect(n).toBe(200_000);
    expect(vt.scheduler.actions.length).toBe(1);
    expect(() => sub.unsubscribe()).not.toThrow();
    expect(vt.scheduler.actions.length).toBe(0);
  });

  it('runs actions due at the same time in the order they were (re)scheduled', async () => {
    const vt = new VirtualTime(0);
    const log: string[] = [];
    interval(1_000, vt.scheduler).subscribe((i) => log.push(`tick${i}`));
    // Scheduled after the interval's first run was queued, before its reschedule for t=2000.
    vt.timers.after(2_000, () => log.push('timer@2000'));
    await vt.advanceTo(2_000, () => Promise.resolve());
    expect(log).toEqual(['tick0', 'timer@2000', 'tick1']);
  });
});
