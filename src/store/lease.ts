// Single-instance lease on a store file. Two runners on one store would each place orders from the
// same sequences and reconcile against each other: duplicate orders. So the store holds one lease
// row (pid, host, boot id, heartbeat) and a second runner refuses to start, naming the holder.
//
// The decision is a pure function (tested on its own); the adapter glue (process.kill, boot id)
// lives at the bottom of this file.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export interface LeaseIdentity {
  /** Random per store instance: distinguishes two stores opened by one process. */
  readonly token: string;
  readonly pid: number;
  readonly hostname: string;
  /** Kernel boot id ('' when unavailable): a pid from an earlier boot names nobody. */
  readonly bootId: string;
}

export interface LeaseHolder extends LeaseIdentity {
  readonly acquiredAt: number;
  readonly heartbeatAt: number;
}

export type LeaseDecision =
  | { readonly kind: 'acquire' }
  | { readonly kind: 'takeover'; readonly reason: string }
  | { readonly kind: 'refuse'; readonly reason: string };

export interface LeaseContext {
  readonly now: number;
  /** A holder on another host whose heartbeat is older than this is considered dead. */
  readonly staleMs: number;
  readonly isPidAlive: (pid: number) => boolean;
  /** Tokens of stores currently open in this process. */
  readonly liveTokens: ReadonlySet<string>;
}

/**
 * Who gets the store. Refusing wrongly only costs a manual restart; taking over wrongly can place
 * duplicate orders, so every doubtful case on the same machine refuses.
 *  - no holder → acquire;
 *  - the holder is a store still open in this process → refuse;
 *  - same host, same boot: holder pid alive (and not this process) → refuse; pid dead, or our own pid
 *    with a token no open store has (a previous incarnation that got our pid back) → take over;
 *  - same host, other boot → take over (every process of that boot is gone);
 *  - other host: the pid cannot be checked; a heartbeat older than `staleMs` → take over, else refuse.
 */
export function decideLease(
  holder: LeaseHolder | undefined,
  me: LeaseIdentity,
  ctx: LeaseContext,
): LeaseDecision {
  if (holder === undefined) return { kind: 'acquire' };
  const who = `pid ${holder.pid} on ${holder.hostname || 'an unnamed host'}`;
  if (ctx.liveTokens.has(holder.token)) {
    return {
      kind: 'refuse',
      reason: `the store is held by another open store in this process (pid ${holder.pid})`,
    };
  }
  if (holder.hostname === me.hostname) {
    if (holder.bootId !== '' && me.bootId !== '' && holder.bootId !== me.bootId) {
      return { kind: 'takeover', reason: `stale lease of ${who} from an earlier boot` };
    }
    if (holder.pid === me.pid) {
      return {
        kind: 'takeover',
        reason: `stale lease of an earlier process that had this pid (${holder.pid})`,
      };
    }
    if (ctx.isPidAlive(holder.pid)) {
      return { kind: 'refuse', reason: `the store is held by a running capibot, ${who}` };
    }
    return { kind: 'takeover', reason: `stale lease of ${who}, which is no longer running` };
  }
  const age = ctx.now - holder.heartbeatAt;
  if (age > ctx.staleMs) {
    return { kind: 'takeover', reason: `stale lease of ${who}: no heartbeat for ${age} ms` };
  }
  return {
    kind: 'refuse',
    reason: `the store is held by ${who} (heartbeat ${age} ms ago); stop it first or wait ${ctx.staleMs} ms after it died`,
  };
}

// --- adapter glue -------------------------------------------------------------------------------

/** `process.kill(pid, 0)` probes without signalling: ESRCH → gone; EPERM → exists (another user). */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let cachedBootId: string | undefined;

/** Linux boot id, '' elsewhere. */
export function currentBootId(): string {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      cachedBootId = '';
    }
  }
  return cachedBootId;
}

export function currentHostname(): string {
  return hostname();
}
