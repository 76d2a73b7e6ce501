import { describe, expect, it } from 'vitest';
import {
  combinationCount,
  combinations,
  MAX_COMBINATIONS,
  parseGrid,
} from '../../../src/backtest/sweep/grid.ts';
import { configProblemLines } from '../../../src/config/load.ts';
import { ConfigError } from '../../../src/core/errors.ts';

describe('sweep grid', () => {
  it('expands the cartesian product, first param slowest, values in list order', () => {
    const g = parseGrid(
      'strategy: ema\nparams:\n  fast: [5, 8]\n  slow: [20, 30]\n  size: "0.01"\n',
      'g.yaml',
    );
    expect(g.strategy).toBe('ema');
    expect(combinationCount(g)).toBe(4);
    expect(combinations(g)).toEqual([
      { fast: 5, slow: 20, size: '0.01' },
      { fast: 5, slow: 30, size: '0.01' },
      { fast: 8, slow: 20, size: '0.01' },
      { fast: 8, slow: 30, size: '0.01' },
    ]);
  });

  it('leaves the strategy out when the grid does not name it', () => {
    expect(parseGrid('params: { a: [1] }', 'g.yaml').strategy).toBeUndefined();
  });

  it.each([
    ['params: {}', /at least one param/],
    ['params: { a: [] }', /^g\.yaml:1:14 params\.a: expected at least one value$/],
    ['strategy: x', /^g\.yaml:1:1 params: missing/],
    ['', /^g\.yaml:1:1 params: missing/],
    ['params: { a: [1] }\nextra: 1', /^g\.yaml:2:1 extra: unknown key/],
    ['params: [1, 2', /^g\.yaml:1:14: invalid YAML/],
  ])('refuses %j with a ConfigError naming the place', (text, message) => {
    expect(() => parseGrid(text, 'g.yaml')).toThrow(ConfigError);
    expect(() => parseGrid(text, 'g.yaml')).toThrow(message);
  });

  it('names a misspelt key with a did-you-mean, after the key it misses', () => {
    const e = (() => {
      try {
        parseGrid('strategy: ema\nparms:\n  fast: [4]\n', 'g.yaml');
      } catch (x) {
        return x;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(ConfigError);
    expect(configProblemLines(e as ConfigError)).toEqual([
      'g.yaml:1:1 params: missing (expected a mapping of param names to lists of values)',
      'g.yaml:2:1 parms: unknown key (did you mean "params"?)',
    ]);
  });

  it('refuses a grid too large to be meant', () => {
    const big = Array.from({ length: 101 }, (_, i) => i).join(', ');
    expect(() => parseGrid(`params: { a: [${big}], b: [${big}] }`, 'g.yaml')).toThrow(
      String(MAX_COMBINATIONS),
    );
  });
});
