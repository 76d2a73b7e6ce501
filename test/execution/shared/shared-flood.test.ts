// Three executors (each with its own Redis connection, as three processes would have) flood one
// simulator over HTTP with reads. Sharing the budget through a real redis-server: no 429, the weight
// sent in any venue window stays within the budget, and with no cancel waiting the flood may use the
// whole shared limit (the cancel reserve costs nothing then). The same three each with a budget of
// their own overrun the venue: the simulator answers 429s (the control proving the difference).
import { describe, expect, it } from 'vitest';
import { REDIS_MISSING, SKIP_REDIS, findRedisServer, redisForSuite } from '../../helpers/redis-server.ts';
import { BUDGET, VENUE, flood, peakWindow, withFlood } from './flood-harness.ts';

const OPTIONS = {
  timeoutMs: 1_000,
  heartbeatMs: 200,
  staleAfterMs: 1_500,
  memberTtlMs: 30_000,
  cancelReserve: 0.1,
};
const MEMBERS = 3;
const READS = 24; // history: IP 10, UID 10 each → 720 weight, about 4 windows of the shared 180

/** The shared limit per window (safety margin 0.9): all of it for reads while no cancel waits. */
const LIMIT = Math.floor(VENUE.ipWeightPerWindow * (BUDGET.safetyMargin ?? 1));
/** What non-cancel requests would leave to cancels, were one waiting (none is here). */
const RESERVE = Math.floor(LIMIT * OPTIONS.cancelReserve);

async function runFlood(redisUrl: string | undefined) {
  return withFlood(MEMBERS, redisUrl, OPTIONS, async ({ sim, members, sent }) => {
    const started = Date.now();
    const results = await Promise.all(members.map((m, i) => flood(m, i, sim.url, 'history', READS, sent)));
    const elapsedMs = Date.now() - started;
    const stats = sim.server.venue.statsSnapshot();
    return {
      results,
      stats,
      sent,
      elapsedMs,
      peaks: members.map((m) => m.peakShared()),
      held: members.reduce((n, m) => n + m.heldForCancel(), 0),
    };
  });
}

describe.skipIf(SKIP_REDIS)('a budget shared by three executors through Redis', () => {
  const redis = redisForSuite();

  it('finds redis-server', () => {
    if (findRedisServer() === undefined) expect.fail(REDIS_MISSING);
  });

  it('floods without a 429 and never sends more than the budget in a window', async () => {
    const server = redis();
    if (server === undefined) return expect.fail(REDIS_MISSING);
    const r = await runFlood(server.url);
    const figures = `shared flood: ${r.stats.weightUsed.ip} weight in ${r.elapsedMs} ms, peak venue window ${peakWindow(r.sent, VENUE.windowMs)}/${VENUE.ipWeightPerWindow}, peak shared ${Math.max(...r.peaks.map((p) => p.used))}/${LIMIT}, 429s ${r.stats.rateLimited.total}, results ${JSON.stringify(r.results)}`;
    // eslint-disable-next-line no-console -- the run's figures, for the record
    console.log(figures);
    expect(
      r.results.map((x) => x.ok),
      figures,
    ).toEqual([READS, READS, READS]);
    expect(r.stats.rateLimited.total, figures).toBe(0);
    expect(r.stats.weightUsed.ip).toBe(MEMBERS * READS * 10);
    // Redis' own count after every reservation never went past the shared limit, and with no cancel
    // waiting the reads used the part a static reserve would have kept for cancels (nothing held back).
    for (const p of r.peaks) expect(p.used).toBeLessThanOrEqual(LIMIT);
    expect(Math.max(...r.peaks.map((p) => p.used)), figures).toBeGreaterThan(LIMIT - RESERVE);
    expect(r.held).toBe(0);
    // By send time on this machine, the combined weight in any venue window fits the venue's limit.
    expect(peakWindow(r.sent, VENUE.windowMs), figures).toBeLessThanOrEqual(VENUE.ipWeightPerWindow);
    // Every member got a part of it (the budget is shared, not taken by one).
    for (let i = 0; i < MEMBERS; i++) expect(r.sent.filter((s) => s.member === i)).toHaveLength(READS);
  });

  it('the same three with a budget each overrun the venue (429s)', async () => {
    const r = await runFlood(undefined);
    expect(r.stats.rateLimited.total).toBeGreaterThan(0);
    expect(peakWindow(r.sent, VENUE.windowMs)).toBeGreaterThan(VENUE.ipWeightPerWindow);
  });
});
