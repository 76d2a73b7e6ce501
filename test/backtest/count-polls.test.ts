import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { countPolls } from '../../src/backtest/count-polls.ts';

describe('countPolls', () => {
  const dir = mkdtempSync(join(tmpdir(), 'capibot-count-'));
  const text = '{"meta":{}}\n{"t":1,"tickers":[]}\n\n{"t":2,"tickers":[]}\n{"t":3,"tickers":[]}';

  it('counts poll lines of plain and gzip recordings (meta line and blank lines excluded)', async () => {
    writeFileSync(join(dir, 'a.ndjson'), text);
    writeFileSync(join(dir, 'a.ndjson.gz'), gzipSync(text + '\n'));
    expect(await countPolls(join(dir, 'a.ndjson'))).toBe(3);
    expect(await countPolls(join(dir, 'a.ndjson.gz'))).toBe(3);
    expect(await countPolls('test/fixtures/recordings/wave-2sym-240s.ndjson')).toBe(240);
  });

  it('is undefined for a file it cannot read', async () => {
    expect(await countPolls(join(dir, 'missing.ndjson'))).toBeUndefined();
  });
});
