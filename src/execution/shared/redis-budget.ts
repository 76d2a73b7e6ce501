// The account's budget as held in Redis: one call per decision, each one Lua script run atomically
// (lua.ts). No fallback, no timers here (shared-budget.ts adds those): this is the part
// property-tested against the pure kernel (test/execution/shared/redis-budget.property.test.ts).
import type { Redis } from 'ioredis';
import { costOf, type BudgetConfig, type RequestCost } from '../budget.ts';
import type { EndpointId } from '../../core/endpoints.ts';
import { CONFIG_ARGS, HEARTBEAT_LUA, LEAVE_LUA, RATE_LIMITED_LUA, RESERVE_LUA } from './lua.ts';
import {
  parseHeartbeat,
  parseRateLimited,
  parseReserve,
  type HeartbeatReply,
  type MemberShare,
  type ReserveReply,
} from './replies.ts';
import { luaScript, runScript } from './scripts.ts';

/** The shared budget's own settings (config `budget.shared`). */
export interface SharedSettings {
  /**
   * Fraction of each pool that non-cancel requests leave to cancels while a cancel of any member
   * waits for room (cancels keep their priority across processes); while none waits, the whole pool.
   */
  readonly cancelReserve: number;
  /** A member silent this long is presumed in fallback: its fallback share is held back. */
  readonly staleAfterMs: number;
  /** A member silent this long is forgotten (its share is released). */
  readonly memberTtlMs: number;
}

export const DEFAULT_SHARED_SETTINGS: SharedSettings = Object.freeze({
  cancelReserve: 0.1,
  staleAfterMs: 3_000,
  memberTtlMs: 120_000,
});

const SCRIPTS = {
  reserve: luaScript('reserve', RESERVE_LUA),
  rateLimited: luaScript('rateLimited', RATE_LIMITED_LUA),
  heartbeat: luaScript('heartbeat', HEARTBEAT_LUA),
  leave: luaScript('leave', LEAVE_LUA),
};

/**
 * How long the mark of a cancel refused for lack of room outlives the wait Redis told it: the retry
 * comes after that wait plus timer, event-loop and round-trip delays. A cancel that never retries (its
 * process died) stops holding the reserve back this long after its wait.
 */
export const CANCEL_MARK_MARGIN_MS = 500;

/** The keys of an account (one hash slot: the account name is the hash tag). */
export function accountKeys(account: string): readonly string[] {
  const p = `capibot:budget:{${account}}:`;
  return [`${p}state`, `${p}weights`, `${p}orders`, `${p}members`, `${p}shares`, `${p}cancels`];
}

/** Rejoin payload of a heartbeat: grants Redis did not see, and what this member knows. */
export interface Replay {
  readonly ipWeight: number;
  readonly uidWeight: number;
  readonly orders: number;
  /** Close the pool for one window (this member learned that Redis lost its state). */
  readonly closeWindow: boolean;
  /** Members (and shares) this member knew: re-registered as stale when Redis forgot them. */
  readonly knownMembers: readonly MemberShare[];
}

const NO_REPLAY: Replay = { ipWeight: 0, uidWeight: 0, orders: 0, closeWindow: false, knownMembers: [] };

export class RedisBudget {
  readonly #redis: Redis;
  readonly #keys: readonly string[];
  readonly #config: BudgetConfig;
  readonly #settings: SharedSettings;
  readonly #member: string;

  constructor(redis: Redis, account: string, member: string, config: BudgetConfig, settings: SharedSettings) {
    this.#redis = redis;
    this.#keys = accountKeys(account);
    this.#config = config;
    this.#settings = settings;
    this.#member = member;
  }

  /** `now`: an explicit time (tests); undefined for Redis' clock. `epoch`: the one last seen ('' none). */
  #args(now: number | undefined, epoch: string): (string | number)[] {
    const values: Record<(typeof CONFIG_ARGS)[number], number> = {
      windowMs: this.#config.windowMs,
      guardMs: this.#config.guardMs,
      orderRateWindowMs: this.#config.orderRateWindowMs,
      ipWeightPerWindow: this.#config.ipWeightPerWindow,
      uidWeightPerWindow: this.#config.uidWeightPerWindow,
      orderRequestsPerSecond: this.#config.orderRequestsPerSecond,
      safetyMargin: this.#config.safetyMargin,
      cancelReserve: this.#settings.cancelReserve,
      staleAfterMs: this.#settings.staleAfterMs,
      memberTtlMs: this.#settings.memberTtlMs,
      recoveryPerSecond: this.#config.recoveryPerSecond,
    };
    return [...CONFIG_ARGS.map((k) => values[k]), now ?? '', epoch];
  }

  /**
   * Reserves one request's weights in every window it counts in, or says how long to wait. A `cancel`
   * may use the whole pool; refused for lack of room, it marks itself waiting until it retries.
   */
  async reserve(
    endpoint: EndpointId | RequestCost,
    cancel: boolean,
    epoch: string,
    now?: number,
  ): Promise<ReserveReply> {
    const c = costOf(endpoint);
    const reply = await runScript(this.#redis, SCRIPTS.reserve, this.#keys, [
      ...this.#args(now, epoch),
      this.#member,
      c.ipWeight,
      c.uidWeight,
      c.orderRateCapped ? 1 : 0,
      cancel ? 1 : 0,
      CANCEL_MARK_MARGIN_MS,
    ]);
    return parseReserve(reply);
  }

  /** A 429 seen by this member: every member's pools shrink and back off. Returns backoffUntil. */
  async rateLimited(retryAfterMs: number, epoch: string, now?: number): Promise<number> {
    const c = this.#config;
    const reply = await runScript(this.#redis, SCRIPTS.rateLimited, this.#keys, [
      ...this.#args(now, epoch),
      c.rateLimitShrink,
      c.minFactor,
      c.backoffMs,
      c.maxBackoffMs,
      retryAfterMs,
    ]);
    return parseRateLimited(reply);
  }

  /** Registers this member as alive (its share denominator becomes the member count). */
  async heartbeat(epoch: string, replay: Replay = NO_REPLAY, now?: number): Promise<HeartbeatReply> {
    const reply = await runScript(this.#redis, SCRIPTS.heartbeat, this.#keys, [
      ...this.#args(now, epoch),
      this.#member,
      replay.ipWeight,
      replay.uidWeight,
      replay.orders,
      replay.closeWindow ? 1 : 0,
      ...replay.knownMembers.flatMap((m) => [m.id, m.share]),
    ]);
    return parseHeartbeat(reply);
  }

  /** Graceful stop: this member's share is no longer held back. */
  async leave(epoch: string, now?: number): Promise<void> {
    await runScript(this.#redis, SCRIPTS.leave, this.#keys, [...this.#args(now, epoch), this.#member]);
  }
}
