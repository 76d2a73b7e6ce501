// Who holds a store's single-instance lease (src/store/lease.ts), read without taking it: a separate
// read-only connection, so `capibot status` and `capibot kill` can tell whether a runner is up.
import Database from 'better-sqlite3';
import { z } from 'zod';
import { StoreError } from '../core/errors.ts';
import { currentBootId, currentHostname, isPidAlive, type LeaseHolder } from '../store/lease.ts';

const LeaseRowSchema = z.object({
  token: z.string(),
  pid: z.number().int(),
  hostname: z.string(),
  boot_id: z.string(),
  acquired_at: z.number().int(),
  heartbeat_at: z.number().int(),
});

/** The lease row of the store at `path`, or undefined when nobody holds it. */
export function readLeaseHolder(path: string): LeaseHolder | undefined {
  let db: Database.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new StoreError(`cannot open store ${path}: ${(e as Error).message}`);
  }
  try {
    db.pragma('busy_timeout = 5000');
    const table = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'lease'`).get();
    if (table === undefined) return undefined;
    const row = LeaseRowSchema.safeParse(db.prepare('SELECT * FROM lease WHERE id = 1').get());
    if (!row.success) return undefined;
    const r = row.data;
    return {
      token: r.token,
      pid: r.pid,
      hostname: r.hostname,
      bootId: r.boot_id,
      acquiredAt: r.acquired_at,
      heartbeatAt: r.heartbeat_at,
    };
  } finally {
    db.close();
  }
}

/**
 * What the lease says about a runner:
 * - `running`: the holder is a live process on this host (same boot), or on another host with a recent
 *   heartbeat;
 * - `stale`: a lease left behind by a runner that is gone (the next `run` takes it over);
 * - `none`: no lease.
 */
export type RunnerState = 'running' | 'stale' | 'none';

export interface RunnerInfo {
  readonly state: RunnerState;
  readonly holder?: LeaseHolder;
  /** The holder runs on this machine (it can be signalled). */
  readonly sameHost?: boolean;
  readonly heartbeatAgeMs?: number;
}

export interface RunnerProbe {
  readonly now: number;
  /** A holder on another host without a heartbeat for this long is considered gone. Default 60 000. */
  readonly staleMs?: number;
  readonly isPidAlive?: (pid: number) => boolean;
  readonly hostname?: string;
  readonly bootId?: string;
}

/** Judges a lease the way the store's lease decision does (without this process being a candidate). */
export function runnerInfo(holder: LeaseHolder | undefined, probe: RunnerProbe): RunnerInfo {
  if (holder === undefined) return { state: 'none' };
  const host = probe.hostname ?? currentHostname();
  const boot = probe.bootId ?? currentBootId();
  const alive = probe.isPidAlive ?? isPidAlive;
  const heartbeatAgeMs = Math.max(0, probe.now - holder.heartbeatAt);
  const sameHost = holder.hostname === host;
  let running: boolean;
  if (sameHost) {
    const otherBoot = holder.bootId !== '' && boot !== '' && holder.bootId !== boot;
    running = !otherBoot && holder.pid !== process.pid && alive(holder.pid);
  } else {
    running = heartbeatAgeMs <= (probe.staleMs ?? 60_000);
  }
  return { state: running ? 'running' : 'stale', holder, sameHost, heartbeatAgeMs };
}
