// One process's side of the budget shared through Redis by every process on an account and IP
// (config `budget.shared`). It is the executor's BudgetGate:
//
//   shared    each request is reserved by one Lua script in Redis (redis-budget.ts), all its windows
//             at once; a heartbeat keeps this member alive and learns the member count N;
//   fallback  Redis failed or was slow (a command timed out): the process spends its 1/N share by the
//             pure kernel, after a quarantine (fallback.ts says why the total stays within the
//             budget); logged once per episode, counted in a metric;
//   rejoining a heartbeat answered again: what was granted in fallback is replayed into Redis, then
//             the process is back on the shared budget. Requests wait during the one round trip.
//
// Cancels keep their priority across processes at no cost while none waits: a cancel the shared
// budget refuses for lack of room marks itself waiting in Redis, and only while such a mark stands do
// the other requests of every member leave the `cancelReserve` of each pool to cancels (lua.ts).
//
// A Redis that lost its state (restart without persistence) is noticed by its new epoch: the member
// replays its whole own window, re-registers the members it knew and closes the pool for one window.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import { ENDPOINTS, type EndpointId } from '../../core/endpoints.ts';
import { TransportError } from '../../core/errors.ts';
import {
  createBudget,
  onRateLimited,
  recordGrant,
  tryConsume,
  type BudgetConfig,
  type BudgetState,
} from '../budget.ts';
import type { BudgetGate, GateDecision } from '../budget-gate.ts';
import type { CancelTimer, Timers } from '../timers.ts';
import { enterShare, ownWindow, quarantineMs, unexpired, type UnseenGrant } from './fallback.ts';
import type { SharedBudgetMetrics } from './metrics.ts';
import { RedisBudget, type Replay, type SharedSettings } from './redis-budget.ts';
import type { HeartbeatReply, MemberShare } from './replies.ts';

export interface SharedBudgetOptions extends SharedSettings {
  /** How often a member tells Redis it is alive (and retries Redis while in fallback). */
  readonly heartbeatMs: number;
}

export const DEFAULT_HEARTBEAT_MS = 500;

export interface SharedBudgetDeps {
  /** Connected with `commandTimeout` (a slow Redis fails the call) and no offline queue. */
  readonly redis: Redis;
  readonly account: string;
  /** Unique per process (host, pid, random). */
  readonly member: string;
  readonly budget: Partial<BudgetConfig>;
  readonly options: SharedBudgetOptions;
  readonly clock: Clock;
  readonly timers: Timers;
  readonly log: Logger;
  readonly metrics: SharedBudgetMetrics;
}

type Mode = 'shared' | 'fallback' | 'rejoining';

const GRANTED: GateDecision = { granted: true };
/** How long a request waits while a rejoin is in flight. */
const REJOIN_WAIT_MS = 20;

/** Cancels keep their priority across processes: an order's cancel and a plan's alike (the executor queues both as cancels). */
function isCancel(endpoint: EndpointId): boolean {
  return endpoint === 'cancelOrder' || endpoint === 'cancelPlan';
}

export class SharedBudget implements BudgetGate {
  readonly #redis: Redis;
  readonly #remote: RedisBudget;
  readonly #opts: SharedBudgetOptions;
  readonly #clock: Clock;
  readonly #timers: Timers;
  readonly #log: Logger;
  readonly #metrics: SharedBudgetMetrics;
  readonly #config: BudgetConfig;
  #mode: Mode = 'shared';
  #epoch = '';
  #members = 1;
  /** This member's fallback share as Redis holds it (it is held back from the others when we are stale). */
  #shareOfBudget = 0;
  #known: readonly MemberShare[] = [];
  /** This process's own grants (shared and fallback): replayed if Redis loses its state. */
  #own: BudgetState;
  /** The share's budget while in fallback. */
  #share: BudgetState | undefined;
  #unseen: UnseenGrant[] = [];
  #lastContact = Number.NEGATIVE_INFINITY;
  #fallbackSince = 0;
  #pausedLogged = false;
  #stopped = false;
  #beat: CancelTimer | undefined;

  constructor(d: SharedBudgetDeps) {
    this.#redis = d.redis;
    this.#own = createBudget(d.budget);
    this.#config = this.#own.config;
    this.#remote = new RedisBudget(d.redis, d.account, d.member, this.#config, d.options);
    this.#opts = d.options;
    this.#clock = d.clock;
    this.#timers = d.timers;
    this.#log = d.log;
    this.#metrics = d.metrics;
  }

  get mode(): Mode {
    return this.#mode;
  }

  /** Members as Redis last counted them (this one included). */
  get members(): number {
    return this.#members;
  }

  /** The fraction of the budget this process spends when it falls back. */
  get share(): number {
    return this.#shareOfBudget;
  }

  /**
   * Joins: the first heartbeat must answer. A process that never reached Redis does not know who else
   * spends the budget, so it refuses to start rather than guess a share.
   */
  async start(): Promise<void> {
    try {
      if (this.#redis.status === 'wait') await this.#redis.connect();
      await this.#heartbeat();
    } catch (e) {
      throw new TransportError(
        `budget.shared: Redis did not answer (${errorText(e)}); not starting, as the other processes on this account may be using the whole budget`,
        'redis',
      );
    }
    this.#metrics.shared(true);
    this.#log.info({ members: this.#members, epoch: this.#epoch }, 'joined the shared weight budget');
    this.#schedule();
  }

  /** Leaves (its share is no longer held back) and closes the connection. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#beat?.();
    if (this.#mode === 'shared') {
      try {
        await this.#remote.leave(this.#epoch);
      } catch (e) {
        this.#log.warn(
          { err: errorText(e) },
          'could not leave the shared budget (Redis); it forgets us later',
        );
      }
    }
    this.#redis.disconnect();
  }

  async reserve(endpoint: EndpointId): Promise<GateDecision> {
    if (this.#mode === 'rejoining') return { granted: false, waitMs: REJOIN_WAIT_MS };
    if (this.#mode === 'shared') {
      const started = performance.now();
      try {
        const r = await this.#remote.reserve(endpoint, isCancel(endpoint), this.#epoch);
        this.#metrics.reservation(performance.now() - started);
        this.#contact(r.members);
        if (r.status === 'epoch') {
          await this.#rejoinAfterLoss(r.epoch);
          return { granted: false, waitMs: 0 };
        }
        this.#metrics.used(r.usage);
        this.#metrics.cancelWaiting(r.cancelWaiting);
        if (r.heldBack) this.#metrics.heldForCancel();
        if (r.status === 'granted') {
          this.#own = recordGrant(this.#own, this.#clock.now(), ENDPOINTS[endpoint]);
          return GRANTED;
        }
        return { granted: false, waitMs: r.waitMs < 0 ? this.#opts.heartbeatMs : r.waitMs };
      } catch (e) {
        // A reply that came too late may still have reserved: counted but unused, never the reverse.
        this.#fallBack(e);
      }
    }
    if (this.#mode !== 'fallback') return { granted: false, waitMs: REJOIN_WAIT_MS };
    return this.#reserveShare(endpoint);
  }

  rateLimited(retryAfterMs: number): void {
    const now = this.#clock.now();
    this.#own = onRateLimited(this.#own, now, retryAfterMs);
    if (this.#share !== undefined) this.#share = onRateLimited(this.#share, now, retryAfterMs);
    if (this.#mode !== 'shared') return;
    this.#remote.rateLimited(retryAfterMs, this.#epoch).catch((e: unknown) => this.#fallBack(e));
  }

  #reserveShare(endpoint: EndpointId): GateDecision {
    const share = this.#share;
    if (share === undefined) return { granted: false, waitMs: this.#opts.heartbeatMs };
    const now = this.#clock.now();
    // Redis forgets a silent member after memberTtlMs: stop before its last grants could outlive that.
    if (now - this.#lastContact > this.#opts.memberTtlMs - this.#config.windowMs - this.#config.guardMs) {
      if (!this.#pausedLogged) {
        this.#pausedLogged = true;
        this.#log.error(
          { silentMs: now - this.#lastContact },
          'shared budget: Redis unreachable for too long; no request is sent until it answers again',
        );
      }
      return { granted: false, waitMs: this.#opts.heartbeatMs };
    }
    const r = tryConsume(share, now, endpoint);
    this.#share = r.state;
    if (!r.granted) {
      // Retry at least every heartbeat: Redis may be back before the share has room.
      return { granted: false, waitMs: Math.min(r.waitMs, this.#opts.heartbeatMs) };
    }
    const cost = ENDPOINTS[endpoint];
    this.#own = recordGrant(this.#own, now, cost);
    this.#unseen.push({ t: now, cost });
    return GRANTED;
  }

  /** Redis failed: spend the 1/N share from now on (logged once per episode). */
  #fallBack(error: unknown): void {
    if (this.#mode === 'fallback' || this.#stopped) return;
    const wasRejoining = this.#mode === 'rejoining';
    this.#mode = 'fallback';
    if (wasRejoining) return; // the episode goes on: same share, same quarantine
    const now = this.#clock.now();
    this.#fallbackSince = now;
    this.#pausedLogged = false;
    this.#unseen = [];
    this.#share = enterShare(this.#own, this.#shareOfBudget, now, this.#opts.staleAfterMs);
    this.#metrics.fallback();
    this.#metrics.shared(false);
    this.#log.warn(
      {
        err: errorText(error),
        members: this.#members,
        share: this.#shareOfBudget,
        quarantineMs: quarantineMs(this.#config, this.#opts.staleAfterMs),
      },
      'shared budget: Redis unavailable, falling back to this process share of the budget',
    );
  }

  #contact(members: number): void {
    this.#lastContact = this.#clock.now();
    this.#members = Math.max(1, members);
    this.#metrics.members(this.#members);
  }

  /** A heartbeat's answer: the share (only a heartbeat changes it, in Redis and here alike). */
  #heard(hb: HeartbeatReply): void {
    this.#contact(hb.members);
    this.#shareOfBudget = hb.share;
    this.#known = hb.shares;
    this.#epoch = hb.epoch;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#beat = this.#timers.after(this.#opts.heartbeatMs, () => {
      void this.#tick();
    });
  }

  async #tick(): Promise<void> {
    try {
      await this.#heartbeat();
    } catch (e) {
      this.#fallBack(e);
    } finally {
      this.#schedule();
    }
  }

  /** One heartbeat; in fallback, the rejoin (replay of the grants Redis did not see). */
  async #heartbeat(): Promise<void> {
    const rejoining = this.#mode === 'fallback';
    const replay: Replay | undefined = rejoining
      ? {
          ...unexpired(this.#unseen, this.#config, this.#clock.now()),
          closeWindow: false,
          knownMembers: [],
        }
      : undefined;
    if (rejoining) this.#mode = 'rejoining';
    const hb = await this.#remote.heartbeat(this.#epoch, replay);
    if (this.#epoch !== '' && hb.epoch !== this.#epoch) {
      this.#lastContact = this.#clock.now();
      await this.#rejoinAfterLoss(hb.epoch);
    } else {
      this.#heard(hb);
    }
    if (this.#mode === 'rejoining') {
      this.#mode = 'shared';
      this.#share = undefined;
      this.#unseen = [];
      this.#metrics.shared(true);
      this.#log.info(
        { members: this.#members, fallbackMs: this.#clock.now() - this.#fallbackSince },
        'shared budget: Redis answers again, back on the shared budget',
      );
    }
  }

  /** Redis lost its state: replay the whole own window, re-register known members, close one window. */
  async #rejoinAfterLoss(epoch: string): Promise<void> {
    const known = this.#known;
    const hb = await this.#remote.heartbeat(epoch, {
      ...ownWindow(this.#own, this.#clock.now()),
      closeWindow: true,
      knownMembers: known,
    });
    this.#heard(hb);
    this.#log.warn(
      { epoch: hb.epoch, reregistered: known.length },
      'shared budget: Redis lost its state (restart); own window replayed, pool closed for one window',
    );
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
