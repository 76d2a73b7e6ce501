import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { dec } from '../../src/core/decimal.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { loadStrategy } from '../../src/strategy/loader.ts';
import { instantiateStrategy } from '../../src/strategy/instantiate.ts';
import type { StrategyStateSource } from '../../src/strategy/types.ts';
import type { HookStrategyInstance } from '../../src/strategy/types.ts';
import { BTC, makeTicker, SPECS } from '../helpers/market.ts';

const API = resolve('src/strategy/index.ts');
const silent = pino({ level: 'silent' });

const emptyState: StrategyStateSource = {
  latestTicker: () => undefined,
  openOrders: () => [],
  position: (_s, symbol) => ({ symbol, long: dec(0), short: dec(0) }),
  pnl: () => ({ realized: dec(0), unrealized: dec(0), fees: dec(0), net: dec(0) }),
};

// Inside the project, so that the modules resolve zod and see `"type": "module"`.
const TMP_ROOT = resolve('test/strategy/.tmp');
afterAll(() => rmSync(TMP_ROOT, { recursive: true, force: true }));

function tmpModule(name: string, source: string): string {
  mkdirSync(TMP_ROOT, { recursive: true });
  const dir = mkdtempSync(join(TMP_ROOT, 'loader-'));
  const file = join(dir, name);
  writeFileSync(file, source);
  return file;
}

async function configError(p: Promise<unknown>): Promise<ConfigError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ConfigError);
  return e as ConfigError;
}

describe('strategy loader', () => {
  it('loads a .ts plugin without a build step and runs it through the public API', async () => {
    const loaded = await loadStrategy('test/strategy/fixtures/echo-strategy.ts');
    expect(loaded.definition.name).toBe('echo');
    const s = instantiateStrategy({
      id: 'echo1',
      definition: loaded.definition,
      params: { size: '0.002' },
      specs: SPECS,
      clock: { now: () => 0 },
      log: silent,
      state: emptyState,
    });
    expect(s.symbols).toEqual([BTC]);
    const out = (s.instance as HookStrategyInstance).onTicker?.(makeTicker(BTC, '100.05'));
    // The plugin's Dec comes from its own big.js copy; the host re-parses it, so compare as text.
    expect(JSON.stringify(out)).toBe(
      JSON.stringify({
        kind: 'place',
        symbol: BTC,
        side: 'open_long',
        size: '0.002',
        orderType: 'normal',
        price: '99.9',
      }),
    );
  });

  it('names the strategy and the param path when params are invalid', async () => {
    const loaded = await loadStrategy('test/strategy/fixtures/echo-strategy.ts');
    const input = {
      id: 'echo1',
      definition: loaded.definition,
      specs: SPECS,
      clock: { now: () => 0 },
      log: silent,
      state: emptyState,
    };
    expect(() => instantiateStrategy({ ...input, params: { levels: 0 } })).toThrow(
      /strategy "echo1" \(echo\): params\.levels: Too small/,
    );
    expect(() => instantiateStrategy({ ...input, params: { levels: 0 } })).toThrow(ConfigError);
  });

  it('refuses a module without a default export', async () => {
    const file = tmpModule('none.ts', 'export const x: number = 1;\n');
    const e = await configError(loadStrategy(file));
    expect(e.message).toMatch(/no default export/);
    expect(e.message).toContain(file);
  });

  it('refuses a default export that is not a defineStrategy result', async () => {
    const file = tmpModule('plain.ts', 'export default { name: "x", create() { return {}; } };\n');
    expect((await configError(loadStrategy(file))).message).toMatch(/not a defineStrategy/);
  });

  it('refuses a strategy written for another API version', async () => {
    const file = tmpModule(
      'old.ts',
      `import { defineStrategy } from ${JSON.stringify(API)};\nimport { z } from 'zod';\n` +
        `const d = defineStrategy({ name: 'old', version: '0', params: z.object({}), symbols: () => ['cmt_btcusdt'], create: () => ({}) });\n` +
        `export default { ...d, apiVersion: 0 };\n`,
    );
    expect((await configError(loadStrategy(file))).message).toMatch(
      /API version 0; this capibot supports version 1/,
    );
  });

  it('reports a module that fails to import', async () => {
    const file = tmpModule('broken.ts', 'throw new Error("broken at import");\n');
    expect((await configError(loadStrategy(file))).message).toMatch(
      /cannot load the strategy module: broken at import/,
    );
  });

  it('reports a syntax error with its place in the file', async () => {
    const file = tmpModule('syntax.ts', 'export default {;\n');
    expect((await configError(loadStrategy(file))).message).toMatch(
      /cannot load the strategy module: Transform failed with 1 error: .*syntax\.ts:1:16: ERROR: /,
    );
  });

  it('reports a missing file', async () => {
    expect((await configError(loadStrategy('strategies/does-not-exist.ts'))).message).toMatch(/not found/);
  });
});
