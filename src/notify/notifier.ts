// Notifications to webhooks. `send` only appends to each interested target's queue and returns at
// once: the trading loop never waits on a webhook. Each target drains its queue on its own (one POST
// at a time, at most `maxPerMinute`, retried with back-off by deliver()); when a queue is full, the
// oldest fill is dropped first (then the oldest notice), so halts and kills are kept. Nothing here
// throws into the caller, and a failing webhook is logged (without its URL) and counted.
import type { Logger } from 'pino';
import type { NotifyConfig } from '../config/schema.ts';
import type { NotifyMetrics } from './metrics.ts';
import { SendRate } from './rate-limit.ts';
import { renderNotice } from './templates.ts';
import type { Notice, NotifyTarget } from './types.ts';
import { deliver } from './webhook.ts';

export interface NotifierDeps {
  readonly targets: readonly NotifyTarget[];
  readonly settings: Pick<
    NotifyConfig,
    'maxPerMinute' | 'queueLimit' | 'timeoutMs' | 'retries' | 'retryBackoffMs'
  >;
  readonly metrics: NotifyMetrics;
  readonly log?: Logger;
  readonly now?: () => number;
}

export interface Notifier {
  send(n: Notice): void;
  /** Resolves when every queue is empty (tests, shutdown). */
  idle(): Promise<void>;
  /**
   * Gives the queues up to `graceMs` to drain (a halt said at shutdown should still go out), then
   * stops: in-flight POSTs are aborted and what is left is dropped (counted).
   */
  close(graceMs?: number): Promise<void>;
}

class TargetQueue {
  readonly queue: Notice[] = [];
  readonly rate: SendRate;
  readonly target: NotifyTarget;
  running: Promise<void> | undefined;
  constructor(target: NotifyTarget, maxPerMinute: number, now: () => number) {
    this.target = target;
    this.rate = new SendRate(maxPerMinute, now);
  }
}

export function createNotifier(d: NotifierDeps): Notifier {
  const now = d.now ?? Date.now;
  const s = d.settings;
  const stop = new AbortController();
  const queues = d.targets.map((t) => new TargetQueue(t, s.maxPerMinute, now));
  const log = d.log?.child({ component: 'notify' });

  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      stop.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });

  const drain = async (q: TargetQueue): Promise<void> => {
    while (q.queue.length > 0 && !stop.signal.aborted) {
      const wait = q.rate.waitMs();
      if (wait > 0) {
        await pause(wait);
        continue;
      }
      const n = q.queue.shift();
      if (n === undefined) break;
      q.rate.took();
      const out = await deliver(q.target.url, renderNotice(n, q.target), {
        timeoutMs: s.timeoutMs,
        retries: s.retries,
        backoffMs: s.retryBackoffMs,
        signal: stop.signal,
      });
      d.metrics.retried(q.target.name, out.attempts - 1);
      if (out.ok) d.metrics.sent(q.target.name);
      else {
        d.metrics.failed(q.target.name, out.reason);
        log?.warn(
          { target: q.target.name, event: n.kind, attempts: out.attempts, reason: out.reason },
          'notification not delivered',
        );
      }
    }
  };

  const kick = (q: TargetQueue): void => {
    if (q.running !== undefined) return;
    q.running = drain(q)
      .catch((e: unknown) => log?.error({ err: e, target: q.target.name }, 'notification queue failed'))
      .finally(() => {
        q.running = undefined;
        if (q.queue.length > 0 && !stop.signal.aborted) kick(q);
      });
  };

  const running = (): Promise<void>[] =>
    queues.map((q) => q.running).filter((r): r is Promise<void> => r !== undefined);
  const settled = async (): Promise<void> => {
    for (let r = running(); r.length > 0; r = running()) await Promise.all(r);
  };

  return {
    send: (n) => {
      if (stop.signal.aborted) return;
      for (const q of queues) {
        if (!q.target.events.includes(n.kind)) continue;
        if (q.queue.length >= s.queueLimit) {
          const fill = q.queue.findIndex((x) => x.kind === 'fill');
          q.queue.splice(fill >= 0 ? fill : 0, 1);
          d.metrics.dropped(q.target.name, 'queue_full');
        }
        q.queue.push(n);
        kick(q);
      }
    },
    idle: settled,
    close: async (graceMs = 0) => {
      if (graceMs > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([settled(), new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
        clearTimeout(timer);
      }
      stop.abort();
      await settled();
      for (const q of queues) {
        for (let i = 0; i < q.queue.length; i++) d.metrics.dropped(q.target.name, 'stopped');
        q.queue.length = 0;
      }
    },
  };
}
