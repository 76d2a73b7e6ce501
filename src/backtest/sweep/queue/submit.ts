// The submitting side of a distributed sweep (`capibot sweep --queue URL`): every grid point becomes
// one BullMQ job (id `<sweep>-<index>`, so a point is never queued twice), and the replies are
// collected by grid point (collector.ts) as workers finish them. Completion and failure events bring
// a point in at once; a slower poll of the points still missing covers anything an event could not
// tell (a connection that dropped, a Redis that restarted). A point whose job has vanished (Redis
// restarted without its data) is queued again. The sweep's jobs are removed from Redis at the end.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Job, Queue, QueueEvents } from 'bullmq';
import type { Logger } from 'pino';
import { BadResponseError } from '../../../core/errors.ts';
import type { SweepDispatch } from '../dispatch.ts';
import type { SweepReply } from '../protocol.ts';
import { ResultCollector } from './collector.ts';
import { probeRedis, type QueueConnection } from './connection.ts';
import { safeUrl } from './safe-url.ts';
import { FileHashCache, portablePath } from './file-hash.ts';
import { JOB_NAME, jobId, parseReply, QUEUE_NAME, type FileCheck, type QueuePayload } from './payload.ts';

export interface QueueSweepOptions {
  readonly connection: QueueConnection;
  readonly log: Logger;
  /** Paths in the jobs are relative to this directory (default: the working directory). */
  readonly cwd?: string;
  /** How often the points still missing are looked up in Redis (default 2 000 ms). */
  readonly pollMs?: number;
  /** Human notices (no worker listening yet, a point queued again). */
  readonly notice?: (text: string) => void;
}

/** A new sweep id: random, unique enough across submitters sharing a queue. */
export function newSweepId(): string {
  return randomBytes(6).toString('hex');
}

async function fileChecks(
  recording: string,
  strategies: readonly string[],
  cwd: string,
): Promise<FileCheck[]> {
  const cache = new FileHashCache();
  const data = portablePath(recording, cwd);
  const checks: FileCheck[] = [
    { role: 'recording', path: data, sha256: await cache.hash(resolve(cwd, data)) },
  ];
  for (const file of new Set(strategies)) {
    const path = portablePath(file, cwd);
    checks.push({ role: 'strategy', path, sha256: await cache.hash(resolve(cwd, path)) });
  }
  return checks;
}

const JOB_OPTIONS = {
  attempts: 1,
  // A safety net only: the submitter removes its jobs once it has their results.
  removeOnComplete: { age: 7 * 24 * 3600 },
  removeOnFail: { age: 7 * 24 * 3600 },
} as const;

/** A SweepDispatch that queues the points on Redis and waits for `capibot worker`s to run them. */
export function queueDispatch(o: QueueSweepOptions): SweepDispatch {
  return async (jobs, ctx) => {
    const cwd = o.cwd ?? process.cwd();
    const log = o.log.child({ component: 'sweep-queue' });
    await probeRedis(o.connection);
    const files = await fileChecks(
      ctx.prepared.data,
      // Strategy files resolve against the working directory, as the loader resolves them.
      ctx.prepared.config.strategies.filter((s) => s.enabled).map((s) => s.file),
      cwd,
    );
    const sweep = newSweepId();
    const payloads = new Map<number, QueuePayload>();
    for (const job of jobs) {
      const configText = await readFile(job.configPath, 'utf8');
      payloads.set(job.index, { v: 1, sweep, job, configText, files });
    }
    const collector = new ResultCollector(payloads.keys());
    const byId = new Map([...payloads.keys()].map((i) => [jobId(sweep, i), i] as const));
    const connection = { url: o.connection.url };
    const queue = new Queue(QUEUE_NAME, { connection });
    const events = new QueueEvents(QUEUE_NAME, { connection });
    queue.on('error', (e: Error) => log.warn({ err: e.message }, 'sweep queue: redis error'));
    events.on('error', (e: Error) => log.warn({ err: e.message }, 'sweep queue events: redis error'));
    log.info({ sweep, points: jobs.length, queue: safeUrl(o.connection.url) }, 'distributed sweep started');

    let finish: (() => void) | undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const accept = (reply: SweepReply): void => {
      if (!collector.accept(reply)) return;
      ctx.onReply(reply);
      if (collector.complete) finish?.();
    };
    const add = (index: number): Promise<unknown> => {
      const payload = payloads.get(index) as QueuePayload;
      return queue.add(JOB_NAME, payload, { ...JOB_OPTIONS, jobId: jobId(sweep, index) });
    };

    const inFlight = new Set<number>();
    /** Looks a point's job up and takes its result when it has one. */
    const check = async (index: number): Promise<void> => {
      if (collector.has(index) || inFlight.has(index)) return;
      inFlight.add(index);
      try {
        const id = jobId(sweep, index);
        const job = await Job.fromId(queue, id);
        if (job === undefined) {
          o.notice?.(`sweep: row ${index}'s job is gone from Redis (restarted?): queued again`);
          log.warn({ sweep, index }, 'job missing from redis: queued again');
          await add(index);
          return;
        }
        const state = await job.getState();
        if (state === 'completed') {
          accept(parseReply(job.returnvalue, `job ${id}`));
        } else if (state === 'failed') {
          accept({ kind: 'failed', index, message: job.failedReason || 'the job failed', exitCode: 1 });
        }
      } catch (e) {
        log.warn({ sweep, index, err: e instanceof Error ? e.message : String(e) }, 'checking a job failed');
        if (e instanceof BadResponseError) accept({ kind: 'failed', index, message: e.message, exitCode: 1 });
      } finally {
        inFlight.delete(index);
      }
    };
    const onEvent = ({ jobId: id }: { jobId: string }): void => {
      const index = byId.get(id);
      if (index !== undefined) void check(index);
    };
    events.on('completed', onEvent);
    events.on('failed', onEvent);

    const pollMs = o.pollMs ?? 2_000;
    let timer: NodeJS.Timeout | undefined;
    const poll = async (): Promise<void> => {
      await Promise.all(collector.missing().map(check));
      if (!collector.complete) timer = setTimeout(() => void poll(), pollMs);
    };
    try {
      await events.waitUntilReady();
      await queue.addBulk(
        [...payloads.entries()].map(([index, data]) => ({
          name: JOB_NAME,
          data,
          opts: { ...JOB_OPTIONS, jobId: jobId(sweep, index) },
        })),
      );
      try {
        if ((await queue.getWorkersCount()) === 0)
          o.notice?.(
            `sweep: no worker on the queue yet: start \`capibot worker --queue ${safeUrl(o.connection.url)}\``,
          );
      } catch {
        // CLIENT LIST may be refused (ACLs): the notice is a courtesy.
      }
      timer = setTimeout(() => void poll(), pollMs);
      if (!collector.complete) await finished;
      return collector.replies();
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      for (const index of payloads.keys()) {
        try {
          await queue.remove(jobId(sweep, index));
        } catch {
          // An active job (locked by a worker) cannot be removed: its removeOnComplete age does it.
        }
      }
      await events.close();
      await queue.close();
    }
  };
}
