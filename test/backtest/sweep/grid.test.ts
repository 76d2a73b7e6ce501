import { describe, expect, it } from 'vitest';
import {
  combinationCount,
  combinations,
  MAX_COMBINATIONS,
  parseGrid,
} from '../../../src/backtest/sweep/grid.ts';
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
    ['params: { a: [] }', /g\.yaml params\.a: expected at least one value/],
    ['strategy: x', /g\.yaml params/],
    ['params: { a: [1] }\nextra: 1', /extra|unrecognized/i],
    ['params: [1, 2', /not valid YAML/],
  ])('refuses %j with a ConfigError naming the place', (text, message) => {
    expect(() => parseGrid(text, 'g.yaml')).toThrow(ConfigError);
    expect(() => parseGrid(text, 'g.yaml')).toThrow(message);
  });

  it('refuses a grid too large to be meant', () => {
    const big = Array.from({ length: 101 }, (_, i) => i).join(', ');
    expect(() => parseGrid(`params: { a: [${big}], b: [${big}] }`, 'g.yaml')).toThrow(
      String(MAX_COMBINATIONS),
    );
  });
});
