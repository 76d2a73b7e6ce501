import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deriveConfigText } from '../../../src/backtest/sweep/derive-config.ts';

const CONFIG = `# my config
mode: paper
strategies:
  - id: a
    file: strategies/a.ts
    params:
      fast: 4 # the fast one
      keep: x
  - id: b
    file: strategies/b.ts
store:
  path: \${CAPIBOT_STORE:-var/x.sqlite}
`;

describe('deriveConfigText', () => {
  it("sets the strategy's params and keeps everything else as written", () => {
    const text = deriveConfigText(CONFIG, 'c.yaml', 'a', { fast: 8, slow: 30 }, 'sweep row 1');
    expect(text.startsWith('# sweep row 1\n# my config\n')).toBe(true);
    expect(text).toContain('${CAPIBOT_STORE:-var/x.sqlite}');
    const doc = parse(text);
    expect(doc.strategies[0].params).toEqual({ fast: 8, keep: 'x', slow: 30 });
    expect(doc.strategies[1]).toEqual({ id: 'b', file: 'strategies/b.ts' });
  });

  it('creates the params of a strategy that had none', () => {
    const doc = parse(deriveConfigText(CONFIG, 'c.yaml', 'b', { level: [1, 2] }, 'h'));
    expect(doc.strategies[1].params).toEqual({ level: [1, 2] });
  });

  it('names the strategy it cannot find', () => {
    expect(() => deriveConfigText(CONFIG, 'c.yaml', 'zz', {}, 'h')).toThrow(/no strategy with id "zz"/);
  });
});
