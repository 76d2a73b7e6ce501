// `capibot kill` with no runner on a store of the embedded paper venue: the in-process simulator died
// with its runner, so its orders exist nowhere; they are closed locally, and the store says HALTED.
// Also: a pending kill request nobody handled is acknowledged, and a held store is refused.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { registerKill } from '../../src/cli/commands/kill.ts';
import { dec } from '../../src/core/decimal.ts';
import { clientOid, orderId, strategyId, symbolId } from '../../src/core/ids.ts';
import { CONTROL_META, pendingKillRequest } from '../../src/ops/control-protocol.ts';
import { EMBEDDED_GONE_REASON } from '../../src/ops/kill-direct.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { IDLE_STRATEGY, runInProcess, tempDir, writeConfig } from './helpers.ts';

function setup(): { cfg: string; storePath: string } {
  const dir = tempDir();
  const storePath = join(dir, 'store.sqlite');
  const cfg = writeConfig(
    dir,
    `mode: paper
paper:
  venue: embedded
  source: live
strategies:
  - id: g
    file: ${IDLE_STRATEGY}
store:
  path: ${storePath}
log:
  level: silent
`,
  );
  const s = new SqliteStore({ path: storePath, lease: { heartbeatMs: 0 } });
  for (const [n, status] of [
    [1, 'open'],
    [2, 'canceling'],
    [3, 'filled'],
  ] as const) {
    s.insertOrder({
      clientOid: clientOid(`cb-g-${n}`),
      orderId: orderId(String(100 + n)),
      strategy: strategyId('g'),
      symbol: symbolId('cmt_btcusdt'),
      side: 'open_long',
      orderType: 'normal',
      price: dec('60000'),
      size: dec('0.01'),
      status,
      filledQty: status === 'filled' ? dec('0.01') : dec(0),
      createdAt: 1,
      updatedAt: 1,
    });
  }
  s.setMeta(CONTROL_META.killRequest, JSON.stringify({ id: 'left-over', at: 1, pid: 9, reason: '' }));
  s.close();
  return { cfg, storePath };
}

describe('capibot kill, embedded paper venue, no runner', () => {
  it('closes the open orders locally and leaves the store HALTED', async () => {
    const { cfg, storePath } = setup();
    const r = await runInProcess(registerKill, ['kill', '--config', cfg, '--yes', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: true,
      via: 'direct',
      venue: 'paper-embedded',
      openBefore: 2,
      canceledLocally: 2,
      cancelRequests: 0,
      stillOpen: [],
    });
    const s = new SqliteStore({ path: storePath, lease: false });
    try {
      expect(s.getMeta('tradingState')).toBe('HALTED');
      expect(s.openOrders()).toEqual([]);
      expect(s.getOrder(clientOid('cb-g-1'))).toMatchObject({
        status: 'canceled',
        reason: EMBEDDED_GONE_REASON,
      });
      expect(s.getOrder(clientOid('cb-g-3'))?.status).toBe('filled');
      expect(pendingKillRequest((k) => s.getMeta(k))).toBeUndefined();
    } finally {
      s.close();
    }
  });

  it('does not act directly on a store another process holds (the lease says so)', async () => {
    const { cfg, storePath } = setup();
    // Held by this very process (a second store in one process is refused like a second runner).
    const holder = new SqliteStore({ path: storePath, lease: { heartbeatMs: 0 } });
    try {
      const r = await runInProcess(registerKill, ['kill', '--config', cfg, '--yes']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/in use/);
      expect(holder.getMeta('tradingState')).toBeUndefined();
    } finally {
      holder.close();
    }
  });
});
