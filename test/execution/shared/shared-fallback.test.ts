// Redis killed in the middle of a flood by two executors, then restarted: each executor falls back to
// its half of the budget (logged once, counted once) after its quarantine, no 429 reaches it, and
// both are back on the shared budget once Redis answers again; every read completes.
import { describe, expect, it } from 'vitest';
import { REDIS_MISSING, SKIP_REDIS, redisForSuite } from '../../helpers/redis-server.ts';
import { BUDGET, VENUE, flood, peakWindow, withFlood } from './flood-harness.ts';

const OPTIONS = {
  timeoutMs: 500,
  heartbeatMs: 100,
  staleAfterMs: 800,
  memberTtlMs: 30_000,
  cancelReserve: 0.1,
};
const READS = 50;
/** Each member's fallback share per window: the budget (200 × 0.9) halved. */
const SHARE = Math.floor((VENUE.ipWeightPerWindow * (BUDGET.safetyMargin ?? 1)) / 2);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const count = (logs: readonly string[], text: string) => logs.filter((l) => l.includes(text)).length;

describe.skipIf(SKIP_REDIS)('the shared budget when Redis dies and comes back', () => {
  const server = redisForSuite();

  it('falls back to 1/N, logs it once, sends no 429-causing burst, and rejoins', async () => {
    const redis = server();
    if (redis === undefined) return expect.fail(REDIS_MISSING);
    await withFlood(2, redis.url, OPTIONS, async ({ sim, members, sent }) => {
      // Within a heartbeat or two, each holds half of the budget as its fallback share.
      await sleep(4 * OPTIONS.heartbeatMs);
      expect(members.map((m) => m.shared?.share)).toEqual([0.5, 0.5]);
      const done = Promise.all(members.map((m, i) => flood(m, i, sim.url, 'history', READS, sent)));
      await sleep(1_200);
      await redis.kill();
      const killedAt = Date.now();
      await sleep(3_500);
      expect(members.map((m) => m.shared?.mode)).toEqual(['fallback', 'fallback']);
      await redis.restart();
      const restartedAt = Date.now();
      const results = await done;

      expect(results.map((r) => r.ok)).toEqual([READS, READS]);
      expect(sim.server.venue.statsSnapshot().rateLimited.total).toBe(0);
      for (const [i, m] of members.entries()) {
        expect(m.shared?.mode).toBe('shared');
        expect(m.fallbacks()).toBe(1);
        expect(count(m.logs, 'falling back to this process share')).toBe(1);
        expect(count(m.logs, 'back on the shared budget')).toBe(1);
        expect(count(m.logs, 'Redis lost its state')).toBeGreaterThanOrEqual(1);
        const inFallback = sent.filter((s) => s.member === i && s.mode === 'fallback');
        // The share was used, within 1/2 of the budget per window, and not before the quarantine.
        expect(inFallback.length).toBeGreaterThan(0);
        expect(peakWindow(inFallback, VENUE.windowMs)).toBeLessThanOrEqual(SHARE);
        const quarantine = VENUE.windowMs + (BUDGET.guardMs ?? 0) + OPTIONS.staleAfterMs;
        expect(Math.min(...inFallback.map((s) => s.t))).toBeGreaterThanOrEqual(
          killedAt + quarantine - OPTIONS.timeoutMs - 50,
        );
        // Back on the shared budget after the restart.
        expect(sent.some((s) => s.member === i && s.mode === 'shared' && s.t > restartedAt)).toBe(true);
      }
      expect(peakWindow(sent, VENUE.windowMs)).toBeLessThanOrEqual(VENUE.ipWeightPerWindow);
      const fb = sent.filter((s) => s.mode === 'fallback');
      // eslint-disable-next-line no-console -- the run's figures, for the record
      console.log(
        `fallback: ${fb.length} reads sent in fallback, peak per member ${[0, 1].map((i) => peakWindow(fb, VENUE.windowMs, (s) => s.member === i)).join('/')} of share ${SHARE}, all ${sent.length} reads done, 429s 0`,
      );
    });
  });
});
