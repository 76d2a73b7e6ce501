// runSweep's checks before anything runs: a bad combination fails the sweep at once, and leaves no
// row config behind.
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSweep } from '../../../src/backtest/sweep/run-sweep.ts';
import { ConfigError } from '../../../src/core/errors.ts';
import { heapChosen } from '../../../scripts/heap-limit.js';

describe('runSweep', () => {
  it('refuses a grid with a bad combination before writing or running anything', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capibot-sweep-'));
    const grid = join(dir, 'grid.yaml');
    writeFileSync(grid, 'strategy: sma\nparams:\n  fast: [5, 0]\n');
    const out = join(dir, 'out');
    const run = runSweep({
      configPath: 'test/fixtures/configs/backtest/sma.yaml',
      gridPath: grid,
      out,
      workers: 1,
      metric: 'netPnl',
      env: {},
    });
    await expect(run).rejects.toThrow(ConfigError);
    await expect(run).rejects.toThrow(/combination 2 \(fast=0\): .*params\.fast/);
    expect(existsSync(join(out, 'configs'))).toBe(false);
    // Without --out, the default run folder is not created either.
    const listing = (): string[] => (existsSync('reports') ? readdirSync('reports').sort() : []);
    const before = listing();
    await expect(
      runSweep({
        configPath: 'test/fixtures/configs/backtest/sma.yaml',
        gridPath: grid,
        workers: 1,
        metric: 'netPnl',
        env: {},
      }),
    ).rejects.toThrow(/combination 2/);
    expect(listing()).toEqual(before);
  });

  // A heap size chosen for this process (NODE_OPTIONS) wins over the threads' cap, by design.
  it.skipIf(heapChosen())(
    "caps each point's heap as `capibot backtest` does, and names the cap when a point meets it",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'capibot-sweep-'));
      const grid = join(dir, 'grid.yaml');
      writeFileSync(grid, 'strategy: sma\nparams:\n  fast: [5]\n');
      const before = process.env['CAPIBOT_HEAP_MB'];
      process.env['CAPIBOT_HEAP_MB'] = '16';
      try {
        await expect(
          runSweep({
            configPath: 'test/fixtures/configs/backtest/sma.yaml',
            gridPath: grid,
            out: join(dir, 'out'),
            workers: 1,
            metric: 'netPnl',
            env: {},
          }),
        ).rejects.toThrow(
          /sweep point's JavaScript heap reached the cap of 16 MiB: run again with CAPIBOT_HEAP_MB=4096/,
        );
      } finally {
        if (before === undefined) delete process.env['CAPIBOT_HEAP_MB'];
        else process.env['CAPIBOT_HEAP_MB'] = before;
      }
    },
    60_000,
  );
});
