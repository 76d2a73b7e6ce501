// `capibot kill`, run: halt through the runner holding the store, or directly at the venue; or with
// --reset, trading back to ACTIVE. The options: ./kill.ts.
import { decToString } from '../../core/decimal.ts';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { Config } from '../../config/schema.ts';
import { loadConfig, readCredentials, secretValues } from '../../config/index.ts';
import { BadInputError, StoreError } from '../../core/errors.ts';
import type { Order } from '../../core/orders.ts';
import { TRADING_STATE_META } from '../../engine/trading-guard.ts';
import { createRootLogger } from '../../obs/logger.ts';
import { CONTROL_META, pendingKillRequest, type KillAck } from '../../ops/control-protocol.ts';
import { killDirectly } from '../../ops/kill-direct.ts';
import { killViaRunner } from '../../ops/kill-via-runner.ts';
import { readLeaseHolder, runnerInfo, type RunnerInfo } from '../../ops/lease-info.ts';
import { openStoreWithoutLease } from '../../ops/open-store.ts';
import { SqliteStore } from '../../store/sqlite-store.ts';
import type { CliContext } from '../command.ts';
import type { KillFlags } from './kill.ts';

function orderLine(o: Order): string {
  return `${o.clientOid} ${o.symbol} ${o.side} ${o.status}${o.orderId !== undefined ? ` (order ${o.orderId})` : ''}`;
}

async function confirm(question: string, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (process.stdin.isTTY !== true || process.stderr.isTTY !== true) {
    throw new BadInputError('not a terminal: add --yes to confirm', '--yes');
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

function runnerOf(path: string): RunnerInfo {
  return existsSync(path) ? runnerInfo(readLeaseHolder(path), { now: Date.now() }) : { state: 'none' };
}

export async function runKill(flags: KillFlags, ctx: CliContext): Promise<void> {
  const config = loadConfig(flags.config, process.env);
  if (flags.reset === true) {
    await reset(config, flags, ctx);
    return;
  }
  const path = config.store.path;
  if (!(await confirm(`Halt trading and cancel every open order of ${path}?`, flags.yes === true))) {
    ctx.out.error('capibot kill: not confirmed, nothing done');
    ctx.setExitCode(1);
    return;
  }
  const runner = runnerOf(path);
  const deadlineMs = Math.round(flags.timeoutS * 1000);
  if (runner.state === 'running' && runner.holder !== undefined) {
    await viaRunner(config, flags, runner, deadlineMs, ctx);
  } else {
    await direct(config, flags, deadlineMs, ctx);
  }
}

async function viaRunner(
  config: Config,
  flags: KillFlags,
  runner: RunnerInfo,
  deadlineMs: number,
  ctx: CliContext,
): Promise<void> {
  const holder = runner.holder;
  if (holder === undefined) return;
  const store = openStoreWithoutLease(config.store.path);
  try {
    const r = await killViaRunner({
      store,
      holder,
      sameHost: runner.sameHost === true,
      reason: flags.reason,
      deadlineMs,
      say: (line) => ctx.out.info(`capibot kill: ${line}`),
      keepProtectivePlans: config.orders.keepProtectivePlans,
    });
    const ok = r.ack !== undefined && r.tradingState === 'HALTED' && r.stillOpen.length === 0;
    if (flags.json === true) {
      ctx.out.json({
        ok,
        via: 'runner',
        runnerPid: holder.pid,
        requestId: r.request.id,
        signaled: r.signaled,
        acknowledged: r.ack !== undefined,
        tradingState: r.tradingState,
        stillOpen: r.stillOpen.map((o) => ({ clientOid: o.clientOid, symbol: o.symbol, status: o.status })),
        keptPlans: r.keptPlans.map(keptLine),
      });
    } else if (ok) {
      ctx.out.data(`HALTED by the runner (pid ${holder.pid}); no open order left${keptText(r.keptPlans)}.`);
    }
    if (r.ack === undefined) {
      ctx.out.error(
        `capibot kill: the runner (pid ${holder.pid}) did not confirm within ${deadlineMs / 1000} s; ` +
          'the request stays pending and is handled when it reads it. If it hangs: stop it (systemctl stop / ' +
          'SIGTERM, a second SIGTERM forces) and run `capibot kill` again.',
      );
    } else if (r.stillOpen.length > 0) {
      ctx.out.error(
        `capibot kill: HALTED, but ${r.stillOpen.length} order(s) not confirmed canceled yet (the runner keeps ` +
          `reconciling them): ${r.stillOpen.map(orderLine).join('; ')}`,
      );
    }
    if (!ok) ctx.setExitCode(1);
  } finally {
    store.close();
  }
}

async function direct(config: Config, flags: KillFlags, deadlineMs: number, ctx: CliContext): Promise<void> {
  const secrets = secretValues(readCredentials(config, process.env));
  const root = createRootLogger({ level: config.log.level, pretty: config.log.pretty, secrets });
  const log = root.logger.child({ component: 'kill' });
  try {
    const r = await killDirectly({ config, env: process.env, log, reason: flags.reason, deadlineMs });
    const ok = r.stillOpen.length === 0;
    if (flags.json === true) {
      ctx.out.json({
        ok,
        via: 'direct',
        venue: r.venue,
        tradingState: 'HALTED',
        openBefore: r.openBefore,
        canceledLocally: r.canceledLocally,
        cancelRequests: r.cancelRequests,
        adopted: r.adopted,
        stillOpen: r.stillOpen.map((o) => ({ clientOid: o.clientOid, symbol: o.symbol, status: o.status })),
        keptPlans: r.keptPlans.map(keptLine),
      });
    } else {
      ctx.out.data(
        `HALTED (no runner was up; done directly on ${r.venue}): ${r.openBefore} open order(s) before, ` +
          `${r.cancelRequests} cancel request(s) sent, ${r.canceledLocally} closed locally` +
          `${r.adopted > 0 ? `, ${r.adopted} unknown order(s) of ours found at the exchange` : ''}` +
          `${keptText(r.keptPlans)}.`,
      );
    }
    if (!ok) {
      ctx.out.error(
        `capibot kill: HALTED, but ${r.stillOpen.length} order(s) not confirmed canceled before the deadline ` +
          `(the next run reconciles them and stays HALTED): ${r.stillOpen.map(orderLine).join('; ')}`,
      );
      ctx.setExitCode(1);
    }
  } finally {
    root.flush();
  }
}

/** A kept protective plan, as the JSON answer lists it. */
function keptLine(o: Order): { clientOid: string; symbol: string; side: string; triggerPrice: string } {
  return {
    clientOid: o.clientOid,
    symbol: o.symbol,
    side: o.side,
    triggerPrice: o.triggerPrice !== undefined ? decToString(o.triggerPrice) : '',
  };
}

/** What the kill did with protective plans, said in its summary line. */
function keptText(kept: readonly Order[]): string {
  if (kept.length === 0) return '';
  return (
    `; ${kept.length} protective plan order(s) (stop-loss / take-profit) left resting at the exchange ` +
    '(orders.keepProtectivePlans: true; set it false to cancel them too)'
  );
}

async function reset(config: Config, flags: KillFlags, ctx: CliContext): Promise<void> {
  const path = config.store.path;
  if (!existsSync(path)) throw new StoreError(`no store at ${path} (store.path): nothing to reset`);
  const runner = runnerOf(path);
  if (runner.state === 'running') {
    throw new StoreError(
      `a runner holds ${path} (pid ${runner.holder?.pid ?? '?'}): stop it before resetting the trading state`,
    );
  }
  if (!(await confirm(`Set trading back to ACTIVE for ${path}?`, flags.yes === true))) {
    ctx.out.error('capibot kill --reset: not confirmed, nothing done');
    ctx.setExitCode(1);
    return;
  }
  // Taking the lease keeps a runner from starting while we write.
  const store = new SqliteStore({ path, lease: { heartbeatMs: 0 } });
  try {
    const before = store.getMeta(TRADING_STATE_META) ?? 'ACTIVE';
    // A request nobody handled must not halt the next run by surprise.
    const pending = pendingKillRequest((k) => store.getMeta(k));
    if (pending !== undefined) {
      const ack: KillAck = {
        id: pending.id,
        at: Date.now(),
        pid: process.pid,
        tradingState: 'ACTIVE',
        canceling: 0,
        by: 'direct',
      };
      store.setMeta(CONTROL_META.killAck, JSON.stringify(ack));
    }
    store.setMeta(TRADING_STATE_META, 'ACTIVE');
    if (flags.json === true) ctx.out.json({ ok: true, tradingState: 'ACTIVE', before });
    else ctx.out.data(`trading state ${before} → ACTIVE; the next \`capibot run\` trades again.`);
  } finally {
    store.close();
  }
}
