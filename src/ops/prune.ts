// `capibot store prune`: keeps the store of a long live run bounded. The rules of what goes are in
// src/store/prune-plan.ts; this module sets them from the store and the config, and guards the store:
//
// - A runner must not hold the store (its lease): a prune of a year of history holds the write lock
//   for seconds, longer than the runner waits for a lock (its next write would fail and stop it), and
//   VACUUM needs the file to itself. So a real prune takes the lease itself (no runner can start
//   meanwhile) and is refused while a runner is up; a dry run only reads and works either way.
// - The fills the reconciler's next fills poll reads again (from its cursor minus the overlap, or a
//   backfill window) stay: removed, they would come back as new fills and be counted twice.
// - The cutoff lies at least an hour (twice the reconciler's recent window, when longer) before the
//   store's latest activity, in the venue's clock: terminal orders of the last minutes are still
//   matched against late fills and history rows.
import { existsSync, statSync } from 'node:fs';
import { z } from 'zod';
import type { PollingConfig } from '../config/schema.ts';
import { BadInputError, StoreError } from '../core/errors.ts';
import { decodeFillsCursor } from '../reconcile/fills-paging.ts';
import { DEFAULT_HISTORY_HEADROOM } from '../reconcile/history-headroom.ts';
import { RECONCILE_META } from '../reconcile/pollers.ts';
import { reconcilerConfig } from '../runner/options.ts';
import type { PruneResult, PruneRules } from '../store/port.ts';
import { PRUNE_DEFAULTS } from '../store/prune-plan.ts';
import { SqliteStore } from '../store/sqlite-store.ts';
import { readMetaJson } from './control-protocol.ts';
import { readLeaseHolder, runnerInfo, type RunnerState } from './lease-info.ts';
import { openStoreWithoutLease } from './open-store.ts';

/** Meta key of the last prune's record (shown by `capibot status`). */
export const PRUNE_META = 'store.lastPrune';

export const PruneRecordSchema = z.object({
  /** Wall-clock time of the prune. */
  at: z.number().int().nonnegative(),
  before: z.number().int(),
  orders: z.number().int().nonnegative(),
  fills: z.number().int().nonnegative(),
  journal: z.number().int().nonnegative(),
  planOrders: z.number().int().nonnegative(),
  carriedLegs: z.number().int().nonnegative(),
});
export type PruneRecord = z.infer<typeof PruneRecordSchema>;

export function readPruneRecord(getMeta: (key: string) => string | undefined): PruneRecord | undefined {
  return readMetaJson(getMeta, PRUNE_META, PruneRecordSchema);
}

/** The fills poll's overlap assumed without a config (the default is 30 s). */
export const FILLS_OVERLAP_FALLBACK_MS = 3_600_000;
/** Extra margin below the fills poll's next window. */
const REREAD_MARGIN_MS = 60_000;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/**
 * The cutoff a user wrote: `YYYY-MM-DD` (midnight UTC), an ISO 8601 date-time with its zone
 * (`2026-01-31T12:00:00Z`, `…+02:00`), epoch milliseconds (13 digits), or an age before `now`
 * (`90d`, `36h`).
 */
export function parseCutoff(text: string, now: number): number {
  const t = text.trim();
  const age = /^(\d{1,5})([dh])$/.exec(t);
  if (age !== null) return now - Number(age[1]) * (age[2] === 'd' ? DAY_MS : HOUR_MS);
  if (/^\d{13}$/.test(t)) return Number(t);
  const date = /^\d{4}-\d{2}-\d{2}$/.test(t);
  const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(t);
  const ms = date || dateTime ? Date.parse(date ? `${t}T00:00:00Z` : t) : Number.NaN;
  if (!Number.isFinite(ms) || (date && new Date(ms).toISOString().slice(0, 10) !== t)) {
    throw new BadInputError(
      `expected YYYY-MM-DD, an ISO date-time with a zone (2026-01-31T12:00:00Z), epoch ms or an age (90d, 36h); got ${JSON.stringify(text)}`,
      '--before',
    );
  }
  return ms;
}

/** The prune rules for a store, from its meta values and (when given) the config's polling settings. */
export function pruneRules(
  before: number,
  getMeta: (key: string) => string | undefined,
  polling: PollingConfig | undefined,
): PruneRules {
  const last = getMeta(RECONCILE_META.lastReconciledAt);
  const cursor = decodeFillsCursor(getMeta(RECONCILE_META.fillsCursor));
  const overlap = polling?.fillsOverlapMs ?? FILLS_OVERLAP_FALLBACK_MS;
  const reread = [
    ...(cursor.newestSeen !== undefined ? [cursor.newestSeen - overlap] : []),
    ...(cursor.backfill !== undefined ? [cursor.backfill.startTime] : []),
  ];
  // No cursor: the first fills poll reaches back to the oldest open order, so keep every fill (0).
  const fillsBefore = reread.length === 0 ? 0 : Math.max(0, Math.min(...reread) - REREAD_MARGIN_MS);
  const recentMs = polling !== undefined ? reconcilerConfig(polling).recentMs : 0;
  return {
    before,
    fillsBefore: Math.min(before, fillsBefore),
    historyPageSize: DEFAULT_HISTORY_HEADROOM.pageSize,
    reachMarginMs: Math.max(PRUNE_DEFAULTS.reachMarginMs, 2 * DEFAULT_HISTORY_HEADROOM.skewMs),
    minAgeMs: Math.max(PRUNE_DEFAULTS.minAgeMs, 2 * recentMs),
    ...(last !== undefined && /^\d+$/.test(last) ? { latestKnown: Number(last) } : {}),
  };
}

export interface PruneStoreInput {
  readonly path: string;
  readonly before: number;
  readonly dryRun: boolean;
  readonly vacuum: boolean;
  /** The config's polling settings (`--config`); absent with `--store`. */
  readonly polling?: PollingConfig;
  /** Wall clock (epoch ms): the runner check and the record. */
  readonly now: number;
}

export interface PruneStoreOutput extends PruneResult {
  readonly store: string;
  readonly runner: RunnerState;
  readonly vacuumed: boolean;
  /** The store's size on disk (database file plus write-ahead log) before and after. */
  readonly bytesBefore: number;
  readonly bytesAfter: number;
}

function storeBytes(path: string): number {
  let n = 0;
  for (const p of [path, `${path}-wal`]) if (existsSync(p)) n += statSync(p).size;
  return n;
}

export function pruneStore(i: PruneStoreInput): PruneStoreOutput {
  if (!existsSync(i.path)) {
    throw new StoreError(`no store at ${i.path}: capibot has not run with this store yet`);
  }
  const runner = runnerInfo(readLeaseHolder(i.path), { now: i.now });
  if (!i.dryRun && runner.state === 'running') {
    throw new StoreError(
      `a runner holds ${i.path} (pid ${runner.holder?.pid ?? '?'}): stop it before pruning ` +
        '(--dry-run works while it runs)',
    );
  }
  const bytesBefore = storeBytes(i.path);
  // A real prune holds the lease: no runner can start on the store meanwhile.
  const store = i.dryRun
    ? openStoreWithoutLease(i.path)
    : new SqliteStore({ path: i.path, lease: { heartbeatMs: 0 } });
  let result: PruneResult;
  try {
    const rules = pruneRules(i.before, (k) => store.getMeta(k), i.polling);
    const record = (r: PruneResult): Record<string, string> => {
      const value: PruneRecord = {
        at: i.now,
        before: i.before,
        orders: r.orders,
        fills: r.fills,
        journal: r.journal,
        planOrders: r.planOrders,
        carriedLegs: r.carriedLegs,
      };
      return { [PRUNE_META]: JSON.stringify(value) };
    };
    result = store.prune(rules, { dryRun: i.dryRun, meta: record });
    if (!i.dryRun && i.vacuum) store.vacuum();
  } finally {
    store.close();
  }
  return {
    ...result,
    store: i.path,
    runner: runner.state,
    vacuumed: !i.dryRun && i.vacuum,
    bytesBefore,
    bytesAfter: storeBytes(i.path),
  };
}
