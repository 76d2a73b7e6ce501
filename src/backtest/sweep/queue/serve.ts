// The worker side of a distributed sweep (`capibot worker --queue URL`): takes grid points from the
// BullMQ queue and runs each in a sweep worker thread (thread-pool.ts, the very code a local sweep
// runs), after checking that this machine's recording and strategy files have the submitter's
// content hashes (a point whose files differ fails, with the reason as the job's failure). The
// reply goes back as the job's return value.
//
// A worker that dies mid-point (SIGKILL, power loss) stops renewing its job's lock; after lockMs
// another worker's stalled-job check (every stalledMs) puts the job back on the queue and someone
// runs it again; the submitter counts each point once. stop() is the graceful stop: no new job is
// taken and the running ones finish (stop(true) abandons them instead, to be retried elsewhere).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { SweepReply } from '../protocol.ts';
import { SweepThreads } from '../thread-pool.ts';
import type { QueueConnection } from './connection.ts';
import { FileHashCache } from './file-hash.ts';
import { parsePayload, QUEUE_NAME } from './payload.ts';

export interface QueueWorkerOptions {
  readonly connection: QueueConnection;
  /** Points run at once (one thread each). */
  readonly concurrency: number;
  /** How long a job's lock lasts without renewal before the job counts as stalled. */
  readonly lockMs: number;
  /** How often this worker looks for stalled jobs (its own and other workers'). */
  readonly stalledMs: number;
  /** How many times one job may stall before it fails for good. */
  readonly maxStalled: number;
  /** Recording and strategy paths in the jobs resolve against this directory. */
  readonly cwd: string;
  /** This worker's name in messages and in BullMQ (e.g. `host:pid`). */
  readonly name: string;
  readonly log: Logger;
  /** Told as points start and end (for the CLI's lines). */
  readonly onPoint?: (e: PointEvent) => void;
}

export type PointEvent =
  | { readonly kind: 'started'; readonly sweep: string; readonly index: number }
  | { readonly kind: 'done'; readonly sweep: string; readonly index: number; readonly reply: SweepReply }
  | { readonly kind: 'refused'; readonly sweep: string; readonly index: number; readonly message: string };

export interface QueueWorker {
  /** Stops taking jobs; waits for the running ones (force: abandons them to be retried elsewhere). */
  stop(force?: boolean): Promise<void>;
}

export async function startQueueWorker(o: QueueWorkerOptions): Promise<QueueWorker> {
  const log = o.log.child({ component: 'sweep-worker', worker: o.name });
  const threads = new SweepThreads(o.concurrency);
  const hashes = new FileHashCache();
  const scratch = await mkdtemp(join(tmpdir(), 'capibot-worker-'));

  const processor = async (job: Job): Promise<SweepReply> => {
    const where = `job ${job.id ?? '?'}`;
    const payload = parsePayload(job.data, where);
    const { sweep, job: point } = payload;
    try {
      await hashes.verify(payload.files, o.cwd, o.name);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      log.warn({ sweep, index: point.index, err: message }, 'point refused');
      o.onPoint?.({ kind: 'refused', sweep, index: point.index, message });
      throw e;
    }
    o.onPoint?.({ kind: 'started', sweep, index: point.index });
    log.info({ sweep, index: point.index }, 'point started');
    const config = join(scratch, `${sweep}-${point.index}.yaml`);
    await writeFile(config, payload.configText, 'utf8');
    try {
      const reply = await threads.run({ ...point, configPath: config });
      // Messages name the submitter's config file, as a local sweep's would.
      const named: SweepReply =
        reply.kind === 'failed'
          ? { ...reply, message: reply.message.replaceAll(config, point.configPath) }
          : reply;
      o.onPoint?.({ kind: 'done', sweep, index: point.index, reply: named });
      log.info({ sweep, index: point.index, result: named.kind }, 'point done');
      return named;
    } finally {
      await rm(config, { force: true });
    }
  };

  const worker = new Worker(QUEUE_NAME, processor, {
    connection: { url: o.connection.url },
    name: o.name,
    concurrency: o.concurrency,
    lockDuration: o.lockMs,
    stalledInterval: o.stalledMs,
    maxStalledCount: o.maxStalled,
    autorun: false,
  });
  worker.on('error', (e: Error) => log.warn({ err: e.message }, 'sweep worker: redis error'));
  worker.on('stalled', (id: string) =>
    log.warn({ job: id }, 'a job stalled (its worker died?): queued again'),
  );
  void worker.run().catch((e: unknown) => log.error({ err: String(e) }, 'sweep worker stopped'));
  await worker.waitUntilReady();
  log.info({ concurrency: o.concurrency, lockMs: o.lockMs, stalledMs: o.stalledMs }, 'sweep worker ready');

  let stopping: Promise<void> | undefined;
  return {
    async stop(force = false) {
      if (force) {
        await worker.close(true);
      } else {
        stopping ??= worker.close();
        await stopping;
      }
      await threads.close();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}
