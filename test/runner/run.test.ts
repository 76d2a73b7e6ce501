// `capibot run`'s composition, in process: a paper run on the embedded simulator over a recording
// (trades, reconciles, reports ready, stops at the end of the data), the live-mode safety catch, and
// the single-instance store lease.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseConfigText } from '../../src/config/load.ts';
import { ConfigError, StoreError } from '../../src/core/errors.ts';
import { CONTROL_SIGNAL } from '../../src/ops/control-protocol.ts';
import { runTrading } from '../../src/runner/runner.ts';
import { SqliteStore } from '../../src/store/sqlite-store.ts';
import { CHURN, paperConfig } from './paper-config.ts';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A paper run on `store` for `durationMs`, with the lines it says to the terminal. */
async function runFor(store: string, durationMs: number): Promise<{ exitCode: number; said: string[] }> {
  const said: string[] = [];
  const result = await runTrading({
    config: paperConfig(store, []),
    env: {},
    live: false,
    signals: false,
    durationMs,
    logger: { level: 'silent' },
    say: (l) => said.push(l),
  });
  return { exitCode: result.exitCode, said };
}

describe('capibot run (in process)', () => {
  it('trades on the embedded simulator, is ready while running, and stops when the recording ends', async () => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-run-'));
    const store = join(dir, 'store.sqlite');
    const lines: string[] = [];
    const readyAnswers: number[] = [];
    let metricsText = '';
    const probe = async (line: string): Promise<void> => {
      const m = /metrics on (http:\/\/[^/]+)\/metrics/.exec(line);
      if (m?.[1] === undefined) return;
      const base = m[1];
      for (let i = 0; i < 40; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const res = await fetch(`${base}/ready`).catch(() => undefined);
        if (res === undefined) return;
        readyAnswers.push(res.status);
        if (res.status !== 200) continue;
        // Ready; fills and their PnL show up in the metrics within a sample or two.
        for (let j = 0; j < 20; j++) {
          metricsText = await (await fetch(`${base}/metrics`)).text();
          if (/capibot_pnl_realized\{/.test(metricsText)) return;
          await new Promise((r) => setTimeout(r, 100));
        }
        return;
      }
    };
    const probes: Promise<void>[] = [];
    const result = await runTrading({
      config: paperConfig(store),
      env: {},
      live: false,
      signals: false,
      logger: { level: 'silent' },
      say: (line) => {
        lines.push(line);
        probes.push(probe(line));
      },
    });
    await Promise.all(probes);
    expect(result).toMatchObject({ exitCode: 0, reason: 'the recording ended' });
    expect(readyAnswers).toContain(200);
    expect(metricsText).toMatch(/capibot_last_reconcile_timestamp_seconds [1-9]/);
    expect(metricsText).toMatch(/capibot_pnl_realized\{[^}]*strategy="churn"[^}]*symbol="cmt_btcusdt"/);
    expect(lines.some((l) => l.startsWith('capibot run: trading (paper, paper-embedded-recording)'))).toBe(
      true,
    );

    const s = new SqliteStore({ path: store, lease: false });
    try {
      const orders = s.allOrders();
      expect(orders.length).toBeGreaterThan(3);
      const filledQty = orders.reduce((q, o) => q.plus(o.filledQty), orders[0]!.filledQty.times(0));
      const fillQty = s.allFills().reduce((q, f) => q.plus(f.size), filledQty.times(0));
      expect(fillQty.eq(filledQty)).toBe(true);
      expect(s.allFills().every((f) => f.clientOid !== undefined)).toBe(true);
    } finally {
      s.close();
    }
  }, 20_000);

  it('refuses live mode without --live, and --live with a paper config (exit 2, nothing started)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-run-'));
    const live = parseConfigText(
      [
        'mode: live',
        'strategies:',
        '  - id: churn',
        `    file: ${CHURN}`,
        'metrics:',
        '  enabled: false',
        '',
      ].join('\n'),
      'live.yaml',
      {},
    );
    await expect(runTrading({ config: live, env: {}, live: false, signals: false })).rejects.toThrow(
      /--live/,
    );
    await expect(runTrading({ config: live, env: {}, live: true, signals: false })).rejects.toThrow(
      ConfigError,
    );
    const paper = paperConfig(join(dir, 'store.sqlite'));
    await expect(runTrading({ config: paper, env: {}, live: true, signals: false })).rejects.toThrow(
      /mode: paper/,
    );
  });

  it('refuses bad strategy params before the store, the metrics port or the venue is touched', async () => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-run-'));
    const store = join(dir, 'store.sqlite');
    const bad = paperConfig(store, []);
    const withTypo = { ...bad, strategies: [{ ...bad.strategies[0]!, params: { symbl: 'cmt_btcusdt' } }] };
    const said: string[] = [];
    await expect(
      runTrading({ config: withTypo, env: {}, live: false, signals: false, say: (l) => said.push(l) }),
    ).rejects.toThrow(/strategies\[0\]\.params\.symbl: unknown param of churn \(did you mean "symbol"\?\)/);
    expect(existsSync(store)).toBe(false);
    expect(said).toEqual([]);
  });

  it('a failure after trading started leaves nothing running (the process can exit)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-run-'));
    // Every interval the run starts (RxJS schedules all its timers with setInterval) must be cleared
    // or unref'd once it has failed.
    const live = new Set<NodeJS.Timeout>();
    let started = 0;
    const listeners = process.listenerCount(CONTROL_SIGNAL);
    const setInterval0 = globalThis.setInterval;
    const clearInterval0 = globalThis.clearInterval;
    vi.spyOn(globalThis, 'setInterval').mockImplementation((fn: () => void, ms?: number) => {
      const t = setInterval0(fn, ms);
      live.add(t);
      started++;
      return t;
    });
    vi.spyOn(globalThis, 'clearInterval').mockImplementation((t) => {
      live.delete(t as NodeJS.Timeout);
      clearInterval0(t);
    });
    try {
      await expect(
        runTrading({
          config: paperConfig(join(dir, 'store.sqlite')),
          env: {},
          live: false,
          signals: false,
          logger: { level: 'silent' },
          // Throws once the feed, the metrics sampler and the control channel are all running.
          say: (line) => {
            if (line.startsWith('capibot run: trading')) throw new Error('output failed');
          },
        }),
      ).rejects.toThrow('output failed');
      expect(started).toBeGreaterThan(0);
      // The control channel let go of its signal too.
      expect(process.listenerCount(CONTROL_SIGNAL)).toBe(listeners);
      expect([...live].filter((t) => t.hasRef())).toEqual([]);
    } finally {
      vi.restoreAllMocks();
      for (const t of live) clearInterval0(t);
    }
  });

  it('says at start that a trading state latched by an earlier run (HALTED) holds', async () => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-run-'));
    const store = join(dir, 'store.sqlite');
    const earlier = new SqliteStore({ path: store });
    earlier.setMeta('tradingState', 'HALTED');
    earlier.close();
    const { exitCode, said } = await runFor(store, 300);
    expect(exitCode).toBe(0);
    const trading = said.findIndex((l) => l.startsWith('capibot run: trading'));
    expect(said[trading + 1]).toMatch(
      /^capibot run: warning: started HALTED: no placement passes, only cancels .*capibot kill --reset/,
    );
  });

  it('warns at a restart of an embedded paper run that the store holds positions the new simulator has not', async () => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-run-'));
    const store = join(dir, 'store.sqlite');
    const run = async (): Promise<string[]> => (await runFor(store, 1_500)).said;
    const first = await run();
    expect(first.some((l) => l.includes('positions of an earlier embedded paper run'))).toBe(false);
    const fills = (() => {
      const s = new SqliteStore({ path: store });
      try {
        return s.allFills();
      } finally {
        s.close();
      }
    })();
    expect(fills.length).toBeGreaterThan(0);
    const second = await run();
    expect(second.join('\n')).toMatch(
      /capibot run: warning: the store holds positions of an earlier embedded paper run \(cmt_btcusdt (long|short) [\d.]+.*\), but the in-process simulator starts flat/,
    );
  });

  it('a second runner on the same store refuses to start', async () => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-run-'));
    const store = join(dir, 'store.sqlite');
    const holder = new SqliteStore({ path: store });
    try {
      await expect(
        runTrading({
          config: paperConfig(store, []),
          env: {},
          live: false,
          signals: false,
          logger: { level: 'silent' },
        }),
      ).rejects.toThrow(StoreError);
    } finally {
      holder.close();
    }
  });
});
