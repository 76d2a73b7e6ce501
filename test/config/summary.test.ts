import { describe, expect, it } from 'vitest';
import { cancelOnSignal, backtestData, parseConfigText, summarizeConfig } from '../../src/config/index.ts';

const STRATS =
  'strategies:\n  - id: ema\n    file: strategies/ema-cross.ts\n  - id: grid\n    file: strategies/grid.ts\n    enabled: false\n';

describe('summarizeConfig', () => {
  it('summarizes a paper config on one line', () => {
    const c = parseConfigText(
      `${STRATS}paper:\n  source: recording\n  data: data/x.ndjson.gz\nmetrics:\n  enabled: false\n`,
      'p.yaml',
      {},
    );
    const s = summarizeConfig(c, {});
    expect(s).toBe(
      'mode paper; paper on recording data/x.ndjson.gz (realtime); 1 of 2 strategies enabled: ema ← strategies/ema-cross.ts, grid (disabled) ← strategies/grid.ts; backtest data data/x.ndjson.gz; store var/capibot.sqlite; metrics off',
    );
    expect(s).not.toContain('\n');
  });

  it('names the credential variables of a live config, never their values', () => {
    const c = parseConfigText(`mode: live\n${STRATS}`, 'l.yaml', {});
    expect(summarizeConfig(c, { CAPIBOT_API_KEY: 'the-key-value' })).toContain(
      'credentials NOT set: CAPIBOT_API_SECRET, CAPIBOT_API_PASSPHRASE; needs --live to run',
    );
    const all = { CAPIBOT_API_KEY: 'kkkkk', CAPIBOT_API_SECRET: 'sssss', CAPIBOT_API_PASSPHRASE: 'ppppp' };
    const s = summarizeConfig(c, all);
    expect(s).toContain('(set)');
    for (const v of Object.values(all)) expect(s).not.toContain(v);
  });
});

describe('derived settings', () => {
  it('cancelOnSignal is either shutdown.cancelOpenOrders or orders.cancelOnExit', () => {
    const parse = (extra: string) => parseConfigText(`${STRATS}${extra}`, 'd.yaml', {});
    expect(cancelOnSignal(parse(''))).toBe(false);
    expect(cancelOnSignal(parse('shutdown:\n  cancelOpenOrders: true\n'))).toBe(true);
    expect(cancelOnSignal(parse('orders:\n  cancelOnExit: true\n'))).toBe(true);
  });

  it('backtestData prefers the flag, then backtest.data, then paper.data', () => {
    const c = parseConfigText(
      `${STRATS}paper:\n  data: p.ndjson\nbacktest:\n  data: b.ndjson\n`,
      'd.yaml',
      {},
    );
    expect(backtestData(c, 'f.ndjson')).toBe('f.ndjson');
    expect(backtestData(c)).toBe('b.ndjson');
    expect(backtestData(parseConfigText(`${STRATS}paper:\n  data: p.ndjson\n`, 'd.yaml', {}))).toBe(
      'p.ndjson',
    );
  });
});
