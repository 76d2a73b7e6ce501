// DeferredReads defers a quiet poll's tickers read only when no weight window can refuse it.
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/core/endpoints.ts';
import { DeferredReads, type DeferralRoom } from '../../src/strategy/testing/deferred-reads.ts';

const W = ENDPOINTS.tickers.ipWeight;
const room = (over: Partial<DeferralRoom> = {}): DeferralRoom => ({
  window: [],
  limit: { ip: 10 * W, uid: 1000 },
  rounds: { ip: 0, uid: 0 },
  steady: true,
  ...over,
});

describe('DeferredReads', () => {
  it('defers reads while the window has room for all of them, and no more', () => {
    const d = new DeferredReads(10_000, () => room());
    for (let i = 0; i < 10; i++) expect(d.tryDefer(5_000 + i * 1000)).toBe(true);
    // An 11th read inside the same 10 s would exceed the limit of 10 reads.
    expect(d.tryDefer(14_999)).toBe(false);
    // Once the first read left the window, there is room again.
    expect(d.tryDefer(15_000)).toBe(true);
    expect(d.size).toBe(11);
  });

  it('counts what the windows held at the last charge until it expires, and the rounds bound', () => {
    const d = new DeferredReads(10_000, () =>
      room({ window: [[0, 5 * W, 0]], rounds: { ip: 2 * W, uid: 0 } }),
    );
    expect(d.tryDefer(1_000)).toBe(true); // 5 + 2 + 1 ≤ 10
    expect(d.tryDefer(2_000)).toBe(true); // 5 + 2 + 2
    expect(d.tryDefer(3_000)).toBe(true); // 5 + 2 + 3
    expect(d.tryDefer(4_000)).toBe(false); // 5 + 2 + 4 > 10
    expect(d.tryDefer(10_000)).toBe(true); // the 5 left the window at 10 s: 2 + 4
  });

  it('has room for slept rounds while the windows, the rounds bound and the reads fit, a read less', () => {
    const d = new DeferredReads(10_000, () =>
      room({ window: [[0, 5 * W, 0]], rounds: { ip: 2 * W, uid: 0 } }),
    );
    expect(d.tryDefer(1_000)).toBe(true); // 5 + 2 + 1
    expect(d.tryDefer(2_000)).toBe(true); // 5 + 2 + 2
    expect(d.tryDefer(3_000)).toBe(true); // 5 + 2 + 3 = 10: no room for a fourth read...
    expect(d.tryDefer(4_000)).toBe(false);
    // ...but the rounds, already in the bound, fit with the three reads: 5 + 2 + 3 ≤ 10.
    expect(d.roomForRounds(4_000)).toBe(true);
    expect(d.size).toBe(3); // asking defers nothing
    const full = new DeferredReads(10_000, () =>
      room({ window: [[0, 9 * W, 0]], rounds: { ip: 2 * W, uid: 0 } }),
    );
    expect(full.roomForRounds(1_000)).toBe(false); // 9 + 2 > 10
    expect(full.roomForRounds(10_000)).toBe(true); // the 9 left the window: 2 ≤ 10
    // Not steady (a 429 backing off), or no bound for the rounds yet: never.
    expect(new DeferredReads(10_000, () => room({ steady: false })).roomForRounds(1)).toBe(false);
    expect(new DeferredReads(10_000, () => room({ rounds: undefined })).roomForRounds(1)).toBe(false);
  });

  it('hands every deferred read over in order, and measures the room again after', () => {
    let measured = 0;
    const d = new DeferredReads(10_000, () => {
      measured++;
      return room();
    });
    d.tryDefer(5);
    d.tryDefer(7);
    expect(d.take()).toEqual([
      { at: 5, endpoints: ['tickers'] },
      { at: 7, endpoints: ['tickers'] },
    ]);
    expect(d.take()).toEqual([]);
    d.tryDefer(9);
    expect(measured).toBe(2);
  });

  it('checks the UID pool the same way, expiring what the windows held entry by entry', () => {
    const U = ENDPOINTS.tickers.uidWeight;
    // Tickers weigh nothing on the UID pool: a full UID window refuses nothing...
    expect(
      new DeferredReads(10_000, () => room({ limit: { ip: 1000, uid: 5 }, window: [[0, 0, 5]] })).tryDefer(1),
    ).toBe(U === 0);
    // ...but what the windows held and the rounds' bound count against the UID limit.
    const d = new DeferredReads(10_000, () =>
      room({
        limit: { ip: 1000, uid: 10 },
        window: [
          [0, 0, 4],
          [1_000, 0, 3],
          [2_000, 0, 3],
        ],
        rounds: { ip: 0, uid: 1 },
      }),
    );
    expect(d.tryDefer(5_000)).toBe(false); // held 4 + 3 + 3, rounds 1: 11 > 10
    expect(d.tryDefer(10_000)).toBe(true); // the 4 left the window: 3 + 3 + 1 ≤ 10
    expect(d.tryDefer(11_000)).toBe(true); // the first 3 left too: 3 + 1
  });

  it('expires several entries of the window at once, in order', () => {
    const d = new DeferredReads(10_000, () =>
      room({
        window: [
          [0, 3 * W, 0],
          [100, 3 * W, 0],
          [200, 3 * W, 0],
        ],
      }),
    );
    expect(d.tryDefer(9_000)).toBe(true); // 9 + 1 ≤ 10
    expect(d.tryDefer(9_500)).toBe(false); // 9 + 2 > 10
    // At 10 150 two entries left the window: 3 held, so 7 reads fit (the one at 9 000 included).
    for (let i = 0; i < 6; i++) expect(d.tryDefer(10_150 + i)).toBe(true);
    expect(d.tryDefer(10_156)).toBe(false);
  });

  it('never defers while the budget backs off, or while the rounds are not known', () => {
    expect(new DeferredReads(10_000, () => room({ steady: false })).tryDefer(0)).toBe(false);
    expect(new DeferredReads(10_000, () => room({ rounds: undefined })).tryDefer(0)).toBe(false);
  });
});
