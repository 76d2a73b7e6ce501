// Notification counters (prom-client), on the run's registry when metrics are on.
import { Counter, type Registry } from 'prom-client';

export interface NotifyMetrics {
  sent(target: string): void;
  failed(target: string, reason: string): void;
  dropped(target: string, reason: 'queue_full' | 'stopped'): void;
  retried(target: string, n: number): void;
}

export function notifyMetrics(registry: Registry | undefined): NotifyMetrics {
  const registers = registry !== undefined ? [registry] : [];
  const sent = new Counter({
    name: 'capibot_notify_sent_total',
    help: 'Notifications delivered, per target',
    labelNames: ['target'],
    registers,
  });
  const failed = new Counter({
    name: 'capibot_notify_failed_total',
    help: 'Notifications given up after their retries, per target and last reason (timeout, network_error, http_5xx, http_4xx)',
    labelNames: ['target', 'reason'],
    registers,
  });
  const dropped = new Counter({
    name: 'capibot_notify_dropped_total',
    help: 'Notifications dropped unsent (queue full, or still queued at shutdown), per target',
    labelNames: ['target', 'reason'],
    registers,
  });
  const retries = new Counter({
    name: 'capibot_notify_retries_total',
    help: 'Retried webhook POSTs, per target',
    labelNames: ['target'],
    registers,
  });
  return {
    sent: (target) => sent.inc({ target }),
    failed: (target, reason) => failed.inc({ target, reason: reasonLabel(reason) }),
    dropped: (target, reason) => dropped.inc({ target, reason }),
    retried: (target, n) => {
      if (n > 0) retries.inc({ target }, n);
    },
  };
}

/** A bounded label set: `HTTP 503` → http_5xx. */
function reasonLabel(reason: string): string {
  const m = /^HTTP (\d)\d\d$/.exec(reason);
  if (m !== null) return `http_${m[1] ?? ''}xx`;
  return reason === 'timeout' ? 'timeout' : reason === 'stopped' ? 'stopped' : 'network_error';
}
