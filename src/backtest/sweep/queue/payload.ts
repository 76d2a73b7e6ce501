// What a distributed sweep puts on the BullMQ queue and gets back: the local sweep's own per-point
// protocol (protocol.ts: SweepJob in, SweepReply out) wrapped with what another machine needs to
// run the point: the derived config's text (relative paths in it resolve against the worker's
// working directory, as for `capibot backtest`) and the content hashes of the recording and the
// strategy files, which the worker checks before it runs anything. Both directions cross Redis, so
// both are parsed here and never trusted as they are.
import { z } from 'zod';
import { BadResponseError } from '../../../core/errors.ts';
import type { SweepJob, SweepReply } from '../protocol.ts';
import { summarySchema } from '../summary-schema.ts';

/** The BullMQ queue every submitter and worker shares (several sweeps may share it at once). */
export const QUEUE_NAME = 'capibot-sweep';
/** The BullMQ job name of a grid point. */
export const JOB_NAME = 'point';

export interface FileCheck {
  readonly role: 'recording' | 'strategy';
  /** As the submitter resolves it: relative to the working directory when inside it. */
  readonly path: string;
  readonly sha256: string;
}

export interface QueuePayload {
  readonly v: 1;
  /** The sweep's id (jobs of one sweep are `<sweep>-<index>`). */
  readonly sweep: string;
  readonly job: SweepJob;
  /** The text of the derived config file `job.configPath` names on the submitting machine. */
  readonly configText: string;
  readonly files: readonly FileCheck[];
}

/** The id of a grid point's job: one job per point, so adding it twice is a no-op. */
export function jobId(sweep: string, index: number): string {
  return `${sweep}-${index}`;
}

const fileCheck = z.object({
  role: z.enum(['recording', 'strategy']),
  path: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

const payloadSchema = z.object({
  v: z.literal(1),
  sweep: z.string().regex(/^[A-Za-z0-9_.]{1,64}$/),
  job: z.object({
    kind: z.literal('job'),
    index: z.number().int().positive(),
    configPath: z.string().min(1),
    data: z.string().min(1).optional(),
  }),
  configText: z.string(),
  files: z.array(fileCheck),
});

const replySchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('done'),
    index: z.number().int().positive(),
    summary: summarySchema,
    polls: z.number(),
  }),
  z.object({
    kind: z.literal('failed'),
    index: z.number().int().positive(),
    message: z.string(),
    exitCode: z.union([z.literal(1), z.literal(2)]),
  }),
]);

function why(e: z.ZodError): string {
  const issue = e.issues[0];
  return issue === undefined ? 'invalid' : `${issue.path.join('.') || '(root)'}: ${issue.message}`;
}

/** A job's data as read from Redis. */
export function parsePayload(data: unknown, where: string): QueuePayload {
  const r = payloadSchema.safeParse(data);
  if (!r.success)
    throw new BadResponseError(`${where}: not a sweep job: ${why(r.error)}`, 'sweep queue', where);
  const { job, ...rest } = r.data;
  const { data: rec, ...jobRest } = job;
  return { ...rest, job: { ...jobRest, ...(rec !== undefined ? { data: rec } : {}) } };
}

/** A job's return value as read from Redis: the worker's SweepReply. */
export function parseReply(value: unknown, where: string): SweepReply {
  const r = replySchema.safeParse(value);
  if (!r.success)
    throw new BadResponseError(`${where}: not a sweep reply: ${why(r.error)}`, 'sweep queue', where);
  return r.data;
}
