// Where a sweep's points run: worker threads on this machine (the default), or a queue that workers
// on any machine take them from (queue/submit.ts). Either way, the same jobs go out and the same
// replies come back (protocol.ts), so the rows do not depend on where they ran.
import type { PreparedBacktest } from '../prepare.ts';
import { runPool } from './pool.ts';
import type { SweepJob, SweepReply } from './protocol.ts';

export interface DispatchContext {
  /** The sweep's base backtest (its recording and strategy files). */
  readonly prepared: PreparedBacktest;
  /** Told as each point finishes, once per point, in completion order. */
  readonly onReply: (reply: SweepReply) => void;
}

/** Runs every job; resolves with one reply per job, sorted by index. */
export type SweepDispatch = (jobs: readonly SweepJob[], ctx: DispatchContext) => Promise<SweepReply[]>;

/** `workers` threads on this machine. */
export function localDispatch(workers: number): SweepDispatch {
  return (jobs, ctx) => runPool(jobs, { workers, onReply: ctx.onReply });
}
