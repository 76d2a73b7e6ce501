// `capibot kill` while a runner holds the store: the request goes through the store's meta table
// (src/ops/control-protocol.ts) and, on the same host, SIGUSR2 wakes the runner at once. Then we wait
// for the runner's acknowledgement (kill switch engaged, HALTED persisted) and for the store to show
// no open order, both within the deadline.
import { randomUUID } from 'node:crypto';
import { StoreError } from '../core/errors.ts';
import { keptOnCancelAll } from '../core/intents.ts';
import { isTerminal, type Order } from '../core/orders.ts';
import { TRADING_STATE_META } from '../engine/trading-guard.ts';
import type { LeaseHolder } from '../store/lease.ts';
import type { OrderStore } from '../store/port.ts';
import {
  CONTROL_META,
  CONTROL_SIGNAL,
  KillAckSchema,
  ListeningSchema,
  readMetaJson,
  type KillAck,
  type KillRequest,
} from './control-protocol.ts';

export interface ViaRunnerOptions {
  readonly store: Pick<OrderStore, 'getMeta' | 'setMeta' | 'openOrders'>;
  readonly holder: LeaseHolder;
  /** The holder runs on this machine: it can be signalled. */
  readonly sameHost: boolean;
  readonly reason: string;
  readonly deadlineMs: number;
  /** Default Date.now. */
  readonly now?: () => number;
  /** Default process.kill. */
  readonly signal?: (pid: number, signal: NodeJS.Signals) => void;
  /** Default 200 ms. */
  readonly pollMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Progress lines for the operator. */
  readonly say?: (line: string) => void;
  /** Protective plan orders stay resting (orders.keepProtectivePlans): not waited for. Default true. */
  readonly keepProtectivePlans?: boolean;
}

export interface ViaRunnerResult {
  readonly request: KillRequest;
  /** Absent when the runner did not acknowledge before the deadline. */
  readonly ack?: KillAck;
  readonly signaled: boolean;
  readonly tradingState: string;
  /** Orders still not terminal when we stopped waiting (kept protective plans aside). */
  readonly stillOpen: readonly Order[];
  /** Protective plan orders left resting on purpose (orders.keepProtectivePlans). */
  readonly keptPlans: readonly Order[];
}

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function killViaRunner(o: ViaRunnerOptions): Promise<ViaRunnerResult> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? defaultSleep;
  const pollMs = o.pollMs ?? 200;
  const say = o.say ?? (() => undefined);
  const getMeta = (k: string): string | undefined => o.store.getMeta(k);

  // A runner that does not announce the channel would not read the request, and SIGUSR2 would kill it
  // outright (its default action) without any cancel: refuse instead.
  const listening = readMetaJson(getMeta, CONTROL_META.listening, ListeningSchema);
  if (listening?.pid !== o.holder.pid) {
    throw new StoreError(
      `the running capibot (pid ${o.holder.pid} on ${o.holder.hostname}) does not accept kill requests; ` +
        'stop it (SIGTERM, with shutdown.cancelOpenOrders: true) and run `capibot kill` again',
    );
  }

  const request: KillRequest = { id: randomUUID(), at: now(), pid: process.pid, reason: o.reason };
  o.store.setMeta(CONTROL_META.killRequest, JSON.stringify(request));
  let signaled = false;
  if (o.sameHost) {
    try {
      (o.signal ?? ((pid, sig) => process.kill(pid, sig)))(o.holder.pid, CONTROL_SIGNAL);
      signaled = true;
    } catch (e) {
      // EPERM (another user) or ESRCH (just exited): the runner's own poll of the store still sees it.
      say(
        `could not signal pid ${o.holder.pid} (${(e as NodeJS.ErrnoException).code ?? 'error'}); waiting for its next poll`,
      );
    }
  }
  say(`kill request ${request.id} sent to the runner (pid ${o.holder.pid}); waiting for it`);

  const deadline = now() + o.deadlineMs;
  let ack: KillAck | undefined;
  const keep = o.keepProtectivePlans ?? true;
  const live = (): Order[] => o.store.openOrders().filter((x) => !isTerminal(x.status));
  const open = (): Order[] => live().filter((x) => !keptOnCancelAll(x, keep));
  for (;;) {
    if (ack === undefined) {
      const a = readMetaJson(getMeta, CONTROL_META.killAck, KillAckSchema);
      if (a?.id === request.id) {
        ack = a;
        say(`runner acknowledged: trading ${a.tradingState}, canceling ${a.canceling} open order(s)`);
      }
    }
    if (ack !== undefined && open().length === 0) break;
    if (now() >= deadline) break;
    await sleep(pollMs);
  }
  return {
    request,
    ...(ack !== undefined ? { ack } : {}),
    signaled,
    tradingState: o.store.getMeta(TRADING_STATE_META) ?? 'ACTIVE',
    stillOpen: open(),
    keptPlans: live().filter((x) => keptOnCancelAll(x, keep)),
  };
}
