// The operator side of `capibot store prune` (src/ops/prune.ts): the cutoff forms, the rules it sets
// from the store's cursors and the config, and the prune itself on a store file (record, dry run,
// vacuum, refusal while the store is held).
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BadInputError, StoreError } from '../../src/core/errors.ts';
import { PRUNE_META, parseCutoff, pruneRules, pruneStore, readPruneRecord } from '../../src/ops/prune.ts';
import { renderPruneText } from '../../src/ops/prune-text.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { fill, order } from '../store/prune-fixtures.ts';
import { tempDir } from './helpers.ts';

const NOW = Date.UTC(2026, 5, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('parseCutoff', () => {
  it('reads dates, date-times with a zone, epoch ms and ages', () => {
    expect(parseCutoff('2026-01-31', NOW)).toBe(Date.UTC(2026, 0, 31));
    expect(parseCutoff('2026-01-31T12:30:00Z', NOW)).toBe(Date.UTC(2026, 0, 31, 12, 30));
    expect(parseCutoff('2026-01-31T12:30:00+02:00', NOW)).toBe(Date.UTC(2026, 0, 31, 10, 30));
    expect(parseCutoff('1767225600000', NOW)).toBe(1_767_225_600_000);
    expect(parseCutoff('90d', NOW)).toBe(NOW - 90 * DAY);
    expect(parseCutoff('36h', NOW)).toBe(NOW - 36 * HOUR);
  });

  it('refuses anything else (exit 2)', () => {
    for (const bad of ['2026-02-30', '2026-01-31T12:00', 'yesterday', '12345', '-3d', '']) {
      expect(() => parseCutoff(bad, NOW), bad).toThrow(BadInputError);
    }
  });
});

describe('pruneRules', () => {
  const polling = {
    tickersMs: 1000,
    fillsMs: 2000,
    historyMs: 5000,
    planHistoryMs: 30_000,
    idleFactor: 3,
    fillsOverlapMs: 30_000,
    unknownGraceMs: 3 * HOUR,
    staleAfterMs: 15_000,
  };

  it('keeps the fills the next fills poll reads again, and the reconciler recent window', () => {
    const meta: Record<string, string> = {
      'reconcile.fillsCursor': JSON.stringify({ newestSeen: NOW - DAY }),
      'reconcile.lastAt': String(NOW),
    };
    const r = pruneRules(NOW - 2 * DAY, (k) => meta[k], polling);
    expect(r.fillsBefore).toBe(NOW - 2 * DAY); // the cursor is later than the cutoff
    expect(r.latestKnown).toBe(NOW);
    expect(r.minAgeMs).toBe(2 * 2 * 3 * HOUR); // twice the recent window (2 × unknownGraceMs)
    const late = pruneRules(NOW, (k) => meta[k], polling);
    expect(late.fillsBefore).toBe(NOW - DAY - 30_000 - 60_000);
    // Without a config the overlap is taken as an hour; without a cursor no fill may go.
    expect(pruneRules(NOW, (k) => meta[k], undefined).fillsBefore).toBe(NOW - DAY - HOUR - 60_000);
    expect(pruneRules(NOW, () => undefined, undefined)).toMatchObject({ fillsBefore: 0, minAgeMs: HOUR });
    meta['reconcile.fillsCursor'] = JSON.stringify({
      newestSeen: NOW,
      backfill: { startTime: NOW - 3 * DAY, endTime: NOW - 2 * DAY },
    });
    expect(pruneRules(NOW, (k) => meta[k], polling).fillsBefore).toBe(NOW - 3 * DAY - 60_000);
  });
});

describe('pruneStore', () => {
  function makeStore(): string {
    const path = join(tempDir('capibot-prune-'), 'store.sqlite');
    const s = new SqliteStore({ path, lease: false, synchronous: 'NORMAL' });
    for (let i = 0; i < 400; i++) {
      s.insertOrder(order({ n: i, status: 'filled', at: NOW - 30 * DAY + i * HOUR }));
      s.recordFill(fill({ t: i, n: i, at: NOW - 30 * DAY + i * HOUR + 1_000 }));
    }
    s.setMeta('reconcile.fillsCursor', JSON.stringify({ newestSeen: NOW - 30 * DAY + 399 * HOUR }));
    s.close();
    return path;
  }

  it('prunes, records what it did, shrinks the file with --vacuum; a dry run changes nothing', () => {
    const path = makeStore();
    const size = statSync(path).size;
    const dry = pruneStore({ path, before: NOW - 20 * DAY, dryRun: true, vacuum: false, now: NOW });
    expect(dry).toMatchObject({ dryRun: true, orders: 240, fills: 240, carriedLegs: 1, runner: 'none' });
    expect(renderPruneText(dry)).toMatch(/Orders\s+240 would be removed \(filled 240\)/);
    const s0 = new SqliteStore({ path, lease: false });
    expect(s0.allOrders()).toHaveLength(400);
    expect(readPruneRecord((k) => s0.getMeta(k))).toBeUndefined();
    s0.close();

    const done = pruneStore({ path, before: NOW - 20 * DAY, dryRun: false, vacuum: true, now: NOW });
    expect({ ...done, dryRun: true, bytesAfter: 0, bytesBefore: 0, vacuumed: false }).toEqual({
      ...dry,
      bytesAfter: 0,
      bytesBefore: 0,
    });
    expect(done.vacuumed).toBe(true);
    expect(done.bytesAfter).toBeLessThan(size);
    expect(renderPruneText(done)).toMatch(/\(vacuumed\)/);
    const s = new SqliteStore({ path, lease: false });
    try {
      expect(s.allOrders()).toHaveLength(400 - 240 + 1);
      expect(readPruneRecord((k) => s.getMeta(k))).toEqual({
        at: NOW,
        before: NOW - 20 * DAY,
        orders: 240,
        fills: 240,
        journal: 0,
        planOrders: 0,
        carriedLegs: 1,
      });
      expect(s.getMeta(PRUNE_META)).toBeDefined();
    } finally {
      s.close();
    }
  });

  it('refuses a store held by a runner (here: another open store), a missing store and a too recent cutoff', () => {
    const path = makeStore();
    const held = new SqliteStore({ path, lease: { heartbeatMs: 0 } });
    try {
      expect(() =>
        pruneStore({ path, before: NOW - 20 * DAY, dryRun: false, vacuum: false, now: NOW }),
      ).toThrow(StoreError);
      // A dry run only reads: it works while the store is held.
      expect(pruneStore({ path, before: NOW - 20 * DAY, dryRun: true, vacuum: false, now: NOW }).orders).toBe(
        240,
      );
    } finally {
      held.close();
    }
    expect(() =>
      pruneStore({ path: `${path}.missing`, before: NOW, dryRun: true, vacuum: false, now: NOW }),
    ).toThrow(/no store at/);
    // The store's latest activity is 13.4 days back: a cutoff 13 days back is too recent.
    expect(() =>
      pruneStore({ path, before: NOW - 13 * DAY, dryRun: false, vacuum: false, now: NOW }),
    ).toThrow(BadInputError);
  });
});
