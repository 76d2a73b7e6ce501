// A pool of worker threads running sweep jobs. Compiled (dist/, as bin/capibot.js runs), a worker
// starts from the compiled worker.js with no loader: the strategy loader registers tsx in it when it
// imports a strategy file. From source (vitest), a worker registers tsx first so it can load the
// TypeScript sources. Jobs are handed out in grid order as workers free up; results are returned by
// index, so their order never depends on timing.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { threadHeapLimitMb } from '../../../scripts/heap-limit.js';
import type { SweepJob, SweepReply } from './protocol.ts';

/**
 * The worker's entry: the compiled worker.js beside this module when it is compiled; else a data:
 * URL module that registers tsx in the worker, then imports the TypeScript worker.
 */
export function workerUrl(): URL {
  if (import.meta.url.endsWith('.js')) return new URL('./worker.js', import.meta.url);
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./worker.ts', import.meta.url).href;
  const code = `import { register } from ${JSON.stringify(tsx)};\nregister();\nawait import(${JSON.stringify(entry)});\n`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}

/**
 * A sweep worker thread. Each point is a backtest: its heap is capped as `capibot backtest`'s is
 * (scripts/heap-limit.js: V8 otherwise lets an old generation grow to four times what is alive), and
 * a thread that meets the cap fails its point with an error naming the cap and how to raise it.
 */
export function sweepWorker(): Worker {
  const mb = threadHeapLimitMb();
  return new Worker(workerUrl(), mb !== undefined ? { resourceLimits: { maxOldGenerationSizeMb: mb } } : {});
}

/** The error a sweep worker thread ended with, the heap cap named when it was the cause. */
export function workerFailure(e: Error): Error {
  if ((e as { code?: unknown }).code !== 'ERR_WORKER_OUT_OF_MEMORY') return e;
  const mb = threadHeapLimitMb();
  return new Error(
    mb !== undefined
      ? `a sweep point's JavaScript heap reached the cap of ${mb} MiB: run again with CAPIBOT_HEAP_MB=4096 (or 0 for Node's default)`
      : "a sweep point's JavaScript heap reached its limit (Node's default, or the --max-old-space-size given): give it more with NODE_OPTIONS=--max-old-space-size=…",
  );
}

export function defaultWorkers(): number {
  return availableParallelism();
}

export interface PoolOptions {
  readonly workers: number;
  /** Told as each job finishes (any order). */
  readonly onReply?: (reply: SweepReply) => void;
}

/** Runs every job; resolves with the replies sorted by index. Rejects if a worker dies. */
export async function runPool(jobs: readonly SweepJob[], o: PoolOptions): Promise<SweepReply[]> {
  const replies: SweepReply[] = [];
  if (jobs.length === 0) return replies;
  const count = Math.max(1, Math.min(o.workers, jobs.length));
  let next = 0;
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let finished = 0;
      const feed = (w: Worker): void => {
        const job = jobs[next++];
        if (job !== undefined) w.postMessage(job);
      };
      for (let i = 0; i < count; i++) {
        const w = sweepWorker();
        workers.push(w);
        w.on('message', (reply: SweepReply) => {
          replies.push(reply);
          o.onReply?.(reply);
          if (++finished === jobs.length) resolve();
          else feed(w);
        });
        w.on('error', (e) => reject(workerFailure(e)));
        w.on('exit', (code) => {
          if (finished < jobs.length) reject(new Error(`a sweep worker exited early (code ${code})`));
        });
        feed(w);
      }
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return replies.sort((a, b) => a.index - b.index);
}
