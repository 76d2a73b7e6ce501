// stop() settles every read: one that gave way to a cancel (and re-queued itself), and one waiting
// for its retry delay. A read left pending would hang a reconciliation poller at shutdown.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { TransportError } from '../../src/core/errors.ts';
import { VirtualTime } from '../../src/engine/virtual-time.ts';
import { createBudget } from '../../src/execution/budget.ts';
import { Executor } from '../../src/execution/executor.ts';
import { clientOid, symbolId } from '../../src/core/ids.ts';

const never = (): Promise<never> => new Promise<never>(() => undefined);

function executor(maxInFlight?: number): Executor {
  const vt = new VirtualTime(1_000_000);
  return new Executor({
    port: { placeOrder: never, placeBatch: never, cancelOrder: never, placePlan: never, cancelPlan: never },
    clock: vt.clock,
    timers: vt.timers,
    budget: createBudget(),
    onOrderEvent: () => undefined,
    onFatal: (e: unknown) => {
      throw e;
    },
    log: pino({ level: 'silent' }),
    ...(maxInFlight !== undefined ? { options: { maxInFlight } } : {}),
  });
}

async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
  await new Promise((r) => setTimeout(r, 20));
}

function watch(p: Promise<unknown>): { state: string } {
  const w = { state: 'pending' };
  p.then(
    () => (w.state = 'resolved'),
    (e: unknown) => (w.state = `rejected: ${e instanceof Error ? e.message : String(e)}`),
  );
  return w;
}

describe('Executor.stop settles every read', () => {
  it('settles a read that gave way to a cancel and re-queued itself', async () => {
    const ex = executor(1);
    void ex.read('fills', never).catch(() => undefined); // holds the only slot
    const second = watch(ex.read('history', () => Promise.resolve('ok')));
    await settle(); // parked on the slot
    ex.submitCancel({ symbol: symbolId('cmt_btcusdt'), clientOid: clientOid('cb-s1-1') });
    await settle(); // the read gives way; the cancel parks on the slot
    ex.stop();
    await settle();
    expect(second.state).toMatch(/^rejected: .*stopped/);
  });

  it('settles a read waiting for its retry delay', async () => {
    const ex = executor();
    const read = watch(ex.read('history', () => Promise.reject(new TransportError('connection reset', 'history'))));
    await settle();
    expect(ex.depth().retrying).toBe(1);
    ex.stop();
    await settle();
    expect(read.state).toMatch(/^rejected: .*stopped/);
  });
});
