// The executor's jobs, what waits in its priority queue (a placement turn, a cancel, a read; cancels and reads count their own attempts), and a request ready to leave.
import type { EndpointId } from '../core/endpoints.ts';
import type { CancelRequestJob } from './executor-types.ts';

export type Job =
  | { readonly kind: 'place' }
  | { readonly kind: 'cancel'; readonly req: CancelRequestJob; attempts: number }
  | {
      readonly kind: 'read';
      readonly endpoint: EndpointId;
      readonly run: () => Promise<unknown>;
      readonly resolve: (v: unknown) => void;
      readonly reject: (e: unknown) => void;
      attempts: number;
    };

export type CancelJob = Extract<Job, { kind: 'cancel' }>;
export type ReadJob = Extract<Job, { kind: 'read' }>;

/** A request ready to leave: its endpoint (for the budget) and how to launch it. */
export interface Prepared {
  readonly endpoint: EndpointId;
  launch(): void;
}
