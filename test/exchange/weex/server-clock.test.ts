import { describe, expect, it } from 'vitest';
import { InvariantViolation } from '../../../src/core/errors.ts';
import { ServerClock } from '../../../src/exchange/weex/server-clock.ts';

function fakeClock(start: number) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('ServerClock', () => {
  it('measures the offset at the midpoint of the round trip and signs 13-digit ms with it', async () => {
    const clock = fakeClock(1_771_475_540_000);
    const sc = new ServerClock({
      clock,
      fetchServerTime: () => {
        clock.advance(100); // 100 ms round trip; server stamps 5 s ahead of local mid-time
        return Promise.resolve(1_771_475_540_050 + 5_000);
      },
    });
    expect(sc.synced).toBe(false);
    await sc.ensureSynced();
    expect(sc.offsetMs).toBe(5_000);
    expect(sc.timestamp()).toBe(String(1_771_475_540_100 + 5_000));
    expect(sc.timestamp()).toMatch(/^\d{13}$/);
  });

  it('syncs once, shares concurrent syncs, re-syncs when stale or invalidated', async () => {
    const clock = fakeClock(1_771_475_540_000);
    let fetches = 0;
    const sc = new ServerClock({
      clock,
      maxAgeMs: 60_000,
      fetchServerTime: () => {
        fetches++;
        return Promise.resolve(clock.now());
      },
    });
    await Promise.all([sc.ensureSynced(), sc.ensureSynced(), sc.sync()]);
    expect(fetches).toBe(1);
    await sc.ensureSynced();
    expect(fetches).toBe(1);
    clock.advance(60_001);
    await sc.ensureSynced();
    expect(fetches).toBe(2);
    sc.invalidate();
    await sc.ensureSynced();
    expect(fetches).toBe(3);
  });

  it('with initialSync false it signs with the local clock until invalidated by a 40008', async () => {
    const clock = fakeClock(1_771_475_540_000);
    let fetches = 0;
    const sc = new ServerClock({
      clock,
      initialSync: false,
      fetchServerTime: () => {
        fetches++;
        return Promise.resolve(clock.now() + 40_000);
      },
    });
    await sc.ensureSynced();
    expect(fetches).toBe(0);
    expect(sc.timestamp()).toBe('1771475540000');
    sc.invalidate();
    await sc.ensureSynced();
    expect(fetches).toBe(1);
    expect(sc.offsetMs).toBe(40_000);
  });

  it('a failed sync leaves it unsynced and propagates', async () => {
    const sc = new ServerClock({
      clock: fakeClock(1_771_475_540_000),
      fetchServerTime: () => Promise.reject(new Error('down')),
    });
    await expect(sc.ensureSynced()).rejects.toThrow('down');
    expect(sc.synced).toBe(false);
  });

  it('refuses to produce a timestamp that is not 13 digits', () => {
    const sc = new ServerClock({ clock: { now: () => 5 }, fetchServerTime: () => Promise.resolve(5) });
    expect(() => sc.timestamp()).toThrow(InvariantViolation);
  });
});
