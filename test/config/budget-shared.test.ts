// Config `budget.shared`: absent by default (one process, no Redis), defaults when present, and the
// rules that keep the fallback safe.
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/load.ts';

const base = ['mode: paper', 'strategies:', '  - id: a', '    file: strategies/ema-cross.ts'];
const parse = (lines: string[]) => parseConfigText([...base, ...lines, ''].join('\n'), 't.yaml', {});

describe('budget.shared', () => {
  it('is absent unless configured', () => {
    expect(parse([]).budget.shared).toBeUndefined();
  });

  it('takes the documented defaults', () => {
    const c = parse(['budget:', '  shared:', '    url: redis://127.0.0.1:6379/0', '    account: main']);
    expect(c.budget.shared).toEqual({
      url: 'redis://127.0.0.1:6379/0',
      account: 'main',
      timeoutMs: 1_000,
      heartbeatMs: 500,
      staleAfterMs: 3_000,
      memberTtlMs: 120_000,
      cancelReserve: 0.1,
    });
  });

  it.each([
    [['    url: http://x', '    account: main'], /redis:\/\/ or rediss:\/\//],
    [['    url: redis://h', '    account: has space'], /account/],
    [['    url: redis://h', '    account: a', '    staleAfterMs: 1000'], /heartbeatMs \+ timeoutMs/],
    [['    url: redis://h', '    account: a', '    memberTtlMs: 20000'], /2 × \(windowMs \+ staleAfterMs\)/],
    [['    url: redis://h', '    account: a', '    cancelReserve: 0.9'], /at most 0\.5/],
    [['    url: redis://h'], /account/],
  ])('refuses %j', (lines, message) => {
    expect(() => parse(['budget:', '  shared:', ...lines])).toThrow(message);
  });
});
