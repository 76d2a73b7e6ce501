// The engine's serial work queue (src/engine/trampoline.ts): steps never nest, run in the order they
// were asked for, and the executor's flush (`afterDrain`) runs once the outermost step has drained.
import { describe, expect, it } from 'vitest';
import { Trampoline } from '../../src/engine/trampoline.ts';

describe('Trampoline', () => {
  it('runs a step at once, and steps asked for inside it after it, in order, without nesting', () => {
    const seen: string[] = [];
    const t = new Trampoline(() => seen.push('drain'));
    t.run(() => {
      seen.push('a start');
      t.run(() => {
        seen.push('b');
        t.run(() => seen.push('d')); // queued by a queued step: after the ones queued before it
      });
      t.run(() => seen.push('c'));
      expect(t.running).toBe(true);
      seen.push('a end');
    });
    expect(seen).toEqual(['a start', 'a end', 'b', 'c', 'd', 'drain']);
    expect(t.running).toBe(false);
    expect(t.footprint()).toEqual({ queue: 0 });
  });

  it('drains once per outermost step', () => {
    let drains = 0;
    const t = new Trampoline(() => drains++);
    t.run(() => undefined);
    t.run(() => t.run(() => undefined));
    expect(drains).toBe(2);
  });

  it('drops the queued steps when a step throws, and runs the next step afresh', () => {
    const seen: string[] = [];
    let drains = 0;
    const t = new Trampoline(() => drains++);
    expect(() =>
      t.run(() => {
        t.run(() => seen.push('never'));
        throw new Error('boom');
      }),
    ).toThrow('boom');
    expect(drains).toBe(0);
    expect(t.running).toBe(false);
    expect(t.footprint()).toEqual({ queue: 0 });
    t.run(() => seen.push('next'));
    expect(seen).toEqual(['next']);
    expect(drains).toBe(1);
  });
});
