// Jobs and replies read back from Redis are parsed, never trusted as they are.
import { describe, expect, it } from 'vitest';
import { jobId, parsePayload, parseReply } from '../../../../src/backtest/sweep/queue/payload.ts';
import { portablePath } from '../../../../src/backtest/sweep/queue/file-hash.ts';
import { queueConnection } from '../../../../src/backtest/sweep/queue/connection.ts';
import { safeUrl } from '../../../../src/backtest/sweep/queue/safe-url.ts';

const payload = {
  v: 1,
  sweep: 'abc123',
  job: { kind: 'job', index: 2, configPath: 'out/configs/2.yaml' },
  configText: 'mode: paper\n',
  files: [{ role: 'recording', path: 'data/x.ndjson', sha256: 'a'.repeat(64) }],
};

describe('sweep queue payloads', () => {
  it('parses a job, without inventing an absent --data', () => {
    const p = parsePayload(payload, 'job 1');
    expect(p.job).toEqual({ kind: 'job', index: 2, configPath: 'out/configs/2.yaml' });
    expect('data' in p.job).toBe(false);
    expect(parsePayload({ ...payload, job: { ...payload.job, data: 'r.ndjson' } }, 'j').job.data).toBe(
      'r.ndjson',
    );
  });

  it('refuses a malformed job or reply, naming the field', () => {
    expect(() =>
      parsePayload({ ...payload, files: [{ role: 'x', path: 'p', sha256: 'z' }] }, 'job 7'),
    ).toThrow(/job 7.*not a sweep job: files\.0\.role/);
    expect(() => parseReply({ kind: 'done', index: 1, summary: { fills: 1 }, polls: 3 }, 'job 8')).toThrow(
      /not a sweep reply: summary\./,
    );
    expect(parseReply({ kind: 'failed', index: 3, message: 'm', exitCode: 2 }, 'j')).toEqual({
      kind: 'failed',
      index: 3,
      message: 'm',
      exitCode: 2,
    });
  });

  it('names one job per grid point', () => {
    expect(jobId('abc', 3)).toBe('abc-3');
  });

  it('checks the --queue URL and hides its password', () => {
    expect(() => queueConnection('http://x:1')).toThrow(/redis:\/\/ or rediss:\/\//);
    expect(() => queueConnection('nonsense')).toThrow(/not a URL/);
    expect(queueConnection('redis://127.0.0.1:6379').url).toBe('redis://127.0.0.1:6379');
    expect(safeUrl('redis://:hunter2@h:1')).not.toContain('hunter2');
  });

  it('names files relative to the working directory when inside it', () => {
    expect(portablePath('/w/p/data/x', '/w/p')).toBe('data/x');
    expect(portablePath('data/x', '/w/p')).toBe('data/x');
    expect(portablePath('/elsewhere/x', '/w/p')).toBe('/elsewhere/x');
  });
});
