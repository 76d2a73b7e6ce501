import { describe, expect, it } from 'vitest';
import { VirtualTime } from '../../src/engine/virtual-time.ts';

describe('VirtualTime', () => {
  it('fires timers in time order up to the target, settling after each instant, and never goes back', async () => {
    const vt = new VirtualTime(1_000);
    const seen: string[] = [];
    vt.timers.after(300, () => seen.push(`b@${vt.now()}`));
    vt.timers.after(100, () => {
      seen.push(`a@${vt.now()}`);
      // A timer scheduled by a timer, due before the target, also fires.
      vt.timers.after(50, () => seen.push(`c@${vt.now()}`));
    });
    const cancel = vt.timers.after(200, () => seen.push('never'));
    cancel();
    let settles = 0;
    await vt.advanceTo(1_250, async () => {
      settles++;
      await Promise.resolve();
    });
    expect(seen).toEqual(['a@1100', 'c@1150']);
    expect(settles).toBe(2);
    expect(vt.now()).toBe(1_250);
    expect(vt.nextDue()).toBe(1_300);
    await vt.advanceTo(1_000);
    expect(vt.now()).toBe(1_250);
    await vt.runAll();
    expect(seen).toEqual(['a@1100', 'c@1150', 'b@1300']);
    expect(vt.nextDue()).toBeUndefined();
  });

  it('jumps without running anything only while no timer is due by the target', () => {
    const vt = new VirtualTime(1_000);
    const seen: number[] = [];
    expect(vt.jumpTo(5_000)).toBe(true);
    expect(vt.now()).toBe(5_000);
    vt.timers.after(100, () => seen.push(vt.now()));
    expect(vt.jumpTo(5_099)).toBe(true);
    expect(vt.jumpTo(5_100)).toBe(false);
    expect(vt.now()).toBe(5_099);
    expect(vt.jumpTo(4_000)).toBe(true);
    expect(vt.now()).toBe(5_099);
    expect(seen).toEqual([]);
  });
});
