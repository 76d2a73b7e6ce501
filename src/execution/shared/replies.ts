// The shared budget scripts' replies (lua.ts), parsed: every field is checked, so a foreign or
// corrupted reply becomes a BadResponseError (and the process falls back) rather than a wrong grant.
import { z } from 'zod';
import { BadResponseError } from '../../core/errors.ts';

/** A %.17g number from Lua: finite. */
const luaNumber = z
  .string()
  .transform((s) => Number(s))
  .refine((n) => Number.isFinite(n), { message: 'expected a finite number' });
const count = luaNumber.refine((n) => Number.isInteger(n) && n >= 0, { message: 'expected a count' });

/** Used weight in the shared windows as the script saw it, and the limits (factor applied). */
export interface SharedUsage {
  readonly ip: number;
  readonly uid: number;
  readonly orders: number;
  readonly ipLimit: number;
  readonly uidLimit: number;
  readonly ordersLimit: number;
}

const ReserveReply = z.tuple([
  z.enum(['granted', 'wait', 'epoch']),
  luaNumber,
  z.string().min(1),
  luaNumber,
  luaNumber,
  luaNumber,
  luaNumber,
  luaNumber,
  luaNumber,
  count,
  z.enum(['0', '1']),
  z.enum(['0', '1']),
]);

export interface ReserveReply {
  readonly status: 'granted' | 'wait' | 'epoch';
  /** For `wait`: ms until it would fit as things stand; −1: not while stale members are held back. */
  readonly waitMs: number;
  readonly epoch: string;
  readonly usage: SharedUsage;
  readonly members: number;
  /** A cancel (of any member) waits for room after this decision: non-cancels leave the reserve. */
  readonly cancelWaiting: boolean;
  /** This non-cancel request was refused only because it left the reserve to a waiting cancel. */
  readonly heldBack: boolean;
}

function parse<T extends z.ZodType>(schema: T, reply: readonly string[], what: string): z.output<T> {
  const r = schema.safeParse(reply);
  if (!r.success) throw new BadResponseError(`bad reply: ${r.error.message}`, `redis:${what}`, 'reply');
  return r.data;
}

export function parseReserve(reply: readonly string[]): ReserveReply {
  const [status, waitMs, epoch, ip, uid, orders, ipLimit, uidLimit, ordersLimit, members, waiting, held] =
    parse(ReserveReply, reply, 'reserve');
  return {
    status,
    waitMs,
    epoch,
    usage: { ip, uid, orders, ipLimit, uidLimit, ordersLimit },
    members,
    cancelWaiting: waiting === '1',
    heldBack: held === '1',
  };
}

const share = luaNumber.refine((n) => n >= 0 && n <= 1, { message: 'expected a share in [0, 1]' });

const HeartbeatReply = z
  .tuple([z.string().min(1), count, share, luaNumber, luaNumber, luaNumber, z.enum(['0', '1'])])
  .rest(z.string().min(1));

/** A member and its share of the budget (a fraction), as Redis holds them. */
export interface MemberShare {
  readonly id: string;
  readonly share: number;
}

export interface HeartbeatReply {
  readonly epoch: string;
  /** Members known to Redis (this one included). */
  readonly members: number;
  /** This member's fallback share: a fraction of the budget, at most 1/members. */
  readonly share: number;
  readonly used: { readonly ip: number; readonly uid: number; readonly orders: number };
  /** This call found Redis' state gone while the caller knew an epoch (and closed the pool). */
  readonly restarted: boolean;
  readonly shares: readonly MemberShare[];
}

export function parseHeartbeat(reply: readonly string[]): HeartbeatReply {
  const [epoch, members, own, ip, uid, orders, restarted, ...rest] = parse(
    HeartbeatReply,
    reply,
    'heartbeat',
  );
  if (rest.length % 2 !== 0 || rest.length / 2 !== members) {
    throw new BadResponseError(
      `bad reply: ${rest.length} member fields for ${members} members`,
      'redis:heartbeat',
      'reply',
    );
  }
  const shares: MemberShare[] = [];
  for (let i = 0; i < rest.length; i += 2) {
    shares.push({ id: rest[i] ?? '', share: share.parse(rest[i + 1]) });
  }
  return { epoch, members, share: own, used: { ip, uid, orders }, restarted: restarted === '1', shares };
}

export function parseRateLimited(reply: readonly string[]): number {
  return parse(z.tuple([luaNumber]), reply, 'rateLimited')[0];
}
