// The operator channel between `capibot kill` and a running engine: the request in the store's meta,
// SIGUSR2 to wake the runner, the kill switch engaged once, the acknowledgement, the snapshot.
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { isTerminal } from '../../src/core/orders.ts';
import {
  CONTROL_META,
  CONTROL_SIGNAL,
  KillAckSchema,
  pendingKillRequest,
  readMetaJson,
  RunnerSnapshotSchema,
} from '../../src/ops/control-protocol.ts';
import { killViaRunner } from '../../src/ops/kill-via-runner.ts';
import { startControl, type SignalSource } from '../../src/runner/control.ts';
import type { LeaseHolder } from '../../src/store/lease.ts';
import { engineHarness, inlineStrategy } from '../helpers/engine-harness.ts';
import { silentLog } from '../helpers/executor-harness.ts';
import { BTC } from '../helpers/market.ts';

const HOLDER: LeaseHolder = {
  token: 't',
  pid: 4242,
  hostname: 'here',
  bootId: '',
  acquiredAt: 0,
  heartbeatAt: 0,
};

/** An engine with one resting bid of its strategy. */
async function tradingEngine() {
  let placed = false;
  const h = engineHarness({
    strategies: [
      {
        id: 'mm',
        definition: inlineStrategy('mm', (ctx) => ({
          onTicker: (t) => {
            if (placed) return [];
            placed = true;
            return [
              ctx.place({ symbol: BTC, side: 'open_long', size: dec('0.01'), price: t.last.minus(100) }),
            ];
          },
        })),
      },
    ],
  });
  h.engine.start();
  await h.tick({ [BTC]: '60000' });
  await h.settle();
  expect(h.engine.openOrders().map((o) => o.status)).toEqual(['pending']);
  return h;
}

function signals(): SignalSource & EventEmitter {
  return new EventEmitter() as SignalSource & EventEmitter;
}

describe('runner control channel', () => {
  it('kill through the runner: request, SIGUSR2, kill switch, acknowledgement, orders canceled', async () => {
    const h = await tradingEngine();
    const sig = signals();
    let now = 1_000;
    const control = startControl({
      store: h.store,
      engine: h.engine,
      log: silentLog,
      signals: sig,
      pid: HOLDER.pid,
      now: () => now,
      pollMs: 0,
      snapshotMs: 0,
    });
    const sent: [number, string][] = [];
    const result = await killViaRunner({
      store: h.store,
      holder: HOLDER,
      sameHost: true,
      reason: 'test',
      deadlineMs: 60_000,
      now: () => now,
      signal: (pid, s) => {
        sent.push([pid, s]);
        sig.emit(s);
      },
      // Time passes; the exchange answers the cancel and reconciliation reports it canceled.
      sleep: async () => {
        now += 200;
        await h.settle();
        h.engine.applyOrderEvents(
          h.engine
            .openOrders()
            .filter((o) => o.status === 'canceling')
            .map((o) => ({ kind: 'OrderCanceled' as const, clientOid: o.clientOid, at: h.vt.now() })),
        );
      },
    });
    control.stop();

    expect(sent).toEqual([[HOLDER.pid, CONTROL_SIGNAL]]);
    expect(result.signaled).toBe(true);
    expect(result.ack).toMatchObject({
      id: result.request.id,
      by: 'runner',
      tradingState: 'HALTED',
      canceling: 1,
    });
    expect(result.tradingState).toBe('HALTED');
    expect(result.stillOpen).toEqual([]);
    expect(h.engine.tradingState()).toBe('HALTED');
    expect(h.store.meta.get('tradingState')).toBe('HALTED');
    expect([...h.store.orders.values()].every((o) => isTerminal(o.status))).toBe(true);
    expect(h.port.requests.filter((r) => r.endpoint === 'cancelOrder')).toHaveLength(1);
    // Handled once: nothing pending any more; the snapshot says HALTED.
    expect(pendingKillRequest((k) => h.store.getMeta(k))).toBeUndefined();
    const snap = readMetaJson((k) => h.store.getMeta(k), CONTROL_META.snapshot, RunnerSnapshotSchema);
    expect(snap).toMatchObject({ pid: HOLDER.pid, tradingState: 'HALTED', openOrders: 0 });
  });

  it('honours a request written before the runner started, and only once', async () => {
    const h = await tradingEngine();
    h.store.setMeta(
      CONTROL_META.killRequest,
      JSON.stringify({ id: 'early', at: 1, pid: 7, reason: 'while it was down' }),
    );
    let kills = 0;
    const sig = signals();
    const control = startControl({
      store: h.store,
      engine: h.engine,
      log: silentLog,
      signals: sig,
      pid: 1,
      pollMs: 0,
      snapshotMs: 0,
      onKill: () => kills++,
    });
    expect(h.engine.tradingState()).toBe('HALTED');
    expect(readMetaJson((k) => h.store.getMeta(k), CONTROL_META.killAck, KillAckSchema)?.id).toBe('early');
    sig.emit(CONTROL_SIGNAL);
    expect(control.checkNow()).toBe(false);
    expect(kills).toBe(1);
    control.stop();
    expect(sig.listenerCount(CONTROL_SIGNAL)).toBe(0);
  });

  it('ignores malformed meta values instead of failing the runner', async () => {
    const h = await tradingEngine();
    h.store.setMeta(CONTROL_META.killRequest, '{"id": 5}');
    const control = startControl({
      store: h.store,
      engine: h.engine,
      log: silentLog,
      signals: signals(),
      pollMs: 0,
      snapshotMs: 0,
    });
    expect(control.checkNow()).toBe(false);
    expect(h.engine.tradingState()).toBe('ACTIVE');
    control.stop();
  });

  it('refuses to signal a runner that does not announce the channel (SIGUSR2 would kill it outright)', async () => {
    const h = await tradingEngine();
    const sent: number[] = [];
    await expect(
      killViaRunner({
        store: h.store,
        holder: HOLDER,
        sameHost: true,
        reason: '',
        deadlineMs: 1_000,
        signal: (pid) => sent.push(pid),
      }),
    ).rejects.toThrow(/does not accept kill requests/);
    expect(sent).toEqual([]);
    expect(h.store.getMeta(CONTROL_META.killRequest)).toBeUndefined();
  });

  it('gives up after the deadline when the runner does not answer, leaving the request pending', async () => {
    const h = await tradingEngine();
    h.store.setMeta(
      CONTROL_META.listening,
      JSON.stringify({ pid: HOLDER.pid, signal: CONTROL_SIGNAL, since: 0 }),
    );
    let now = 0;
    const r = await killViaRunner({
      store: h.store,
      holder: HOLDER,
      sameHost: false,
      reason: '',
      deadlineMs: 1_000,
      now: () => now,
      sleep: () => {
        now += 250;
        return Promise.resolve();
      },
    });
    expect(r.ack).toBeUndefined();
    expect(r.signaled).toBe(false);
    expect(r.stillOpen).toHaveLength(1);
    expect(pendingKillRequest((k) => h.store.getMeta(k))?.id).toBe(r.request.id);
  });
});
