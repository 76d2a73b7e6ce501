// End to end: the real `capibot` binary, `validate` and `config-schema`.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_SECTIONS } from '../../src/config/index.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'capibot.js');

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function capibot(args: readonly string[], cwd = ROOT, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { PATH: process.env['PATH'] ?? '', ...env } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}

const STRATS = 'strategies:\n  - id: ema\n    file: strategies/ema-cross.ts\n';

// Each run starts a Node process with the TypeScript loader: they run concurrently to stay quick.
describe.concurrent('capibot validate', () => {
  it('accepts the example config (exit 0) with a summary', async () => {
    const r = await capibot(['validate', '--config', 'config/example.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok: config\/example\.yaml: mode paper; /);
    expect(r.stdout).toContain('ema ← strategies/ema-cross.ts');
    expect(r.stdout).toContain('data/binance-btc-eth-20240719-1s.ndjson.gz');
    expect(r.stderr).toBe('');
  });

  it('refuses a bad config with one line per problem (exit 2)', async () => {
    const r = await capibot(['validate', '--config', 'test/fixtures/configs/bad/11-int-as-word.yaml']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(
      'capibot: error [CONFIG] test/fixtures/configs/bad/11-int-as-word.yaml:5:18 risk.maxOpenOrders: expected a positive integer, got "ten"',
    );
  });

  it('lists further problems after the first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capibot-validate-'));
    const file = join(dir, 'two.yaml');
    writeFileSync(file, `${STRATS}risk:\n  maxOpenOrders: ten\n  maxOrdersPerMinut: 3\n`);
    const r = await capibot(['validate', '--config', file]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('(and 1 more problem)');
    expect(lines[1]).toBe(
      `  also: ${file}:6:3 risk.maxOrdersPerMinut: unknown key (did you mean "maxOrdersPerMinute"?)`,
    );
  });

  it('reads ${VAR} from the environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capibot-validate-'));
    const file = join(dir, 'env.yaml');
    writeFileSync(file, `${STRATS}metrics:\n  port: \${CAPIBOT_TEST_PORT}\n`);
    const [unset, ok] = await Promise.all([
      capibot(['validate', '--config', file]),
      capibot(['validate', '--config', file], ROOT, { CAPIBOT_TEST_PORT: '9555' }),
    ]);
    expect(unset.stderr).toContain('CAPIBOT_TEST_PORT is not set');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('metrics on 127.0.0.1:9555');
  });

  it('checks the named files only with --check-files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capibot-validate-'));
    writeFileSync(join(dir, 'c.yaml'), `${STRATS}backtest:\n  data: data/rec.ndjson.gz\n`);
    const [unchecked, missing] = await Promise.all([
      capibot(['validate', '--config', 'c.yaml'], dir),
      capibot(['validate', '--config', 'c.yaml', '--check-files'], dir),
    ]);
    expect(unchecked.code).toBe(0);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      'c.yaml:3:11 strategies[0].file: file strategies/ema-cross.ts does not exist',
    );
    // Every missing file is listed, not only the first.
    expect(missing.stderr).toContain('c.yaml:5:9 backtest.data: file data/rec.ndjson.gz does not exist');
    mkdirSync(join(dir, 'strategies'));
    writeFileSync(
      join(dir, 'strategies', 'ema-cross.ts'),
      `import { defineStrategy, z } from ${JSON.stringify(join(ROOT, 'src/strategy/index.ts'))};\n` +
        "export default defineStrategy({ name: 'stub', version: '1', params: z.strictObject({}), " +
        "symbols: () => ['cmt_btcusdt'], create: () => ({}) });\n",
    );
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'rec.ndjson.gz'), '');
    expect((await capibot(['validate', '--config', 'c.yaml', '--check-files'], dir)).code).toBe(0);
  });

  it("checks every enabled strategy's params, each problem at its place in the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'capibot-validate-'));
    const file = join(dir, 'params.yaml');
    writeFileSync(
      file,
      [
        'strategies:',
        '  - id: ema',
        '    file: strategies/ema-cross.ts',
        '    params: { fastPeriod: four, slowPeriodd: 12 }',
        '  - id: later',
        '    file: strategies/not-written-yet.ts',
        '',
      ].join('\n'),
    );
    const [plain, checked] = await Promise.all([
      capibot(['validate', '--config', file]),
      capibot(['validate', '--config', file, '--check-files']),
    ]);
    expect(plain.code).toBe(2);
    const lines = plain.stderr.trim().split('\n');
    expect(lines).toEqual([
      `capibot: error [CONFIG] ${file}:4:27 strategies[0].params.fastPeriod: ema-cross: Invalid input: expected number, received string (and 1 more problem)`,
      `  also: ${file}:4:46 strategies[0].params.slowPeriodd: unknown param of ema-cross (did you mean "slowPeriod"?)`,
    ]);
    // A strategy file not written yet is only an error with --check-files (which stops at the files).
    expect(checked.code).toBe(2);
    expect(checked.stderr).toContain('strategies[1].file: file strategies/not-written-yet.ts does not exist');
  });

  it('a missing config file is bad usage (exit 2)', async () => {
    const r = await capibot(['validate', '--config', 'nope.yaml']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(
      'capibot: error [CONFIG] nope.yaml: cannot read the config file: no such file',
    );
  });
});

describe('capibot config-schema', () => {
  it('prints a JSON Schema covering every top-level key', async () => {
    const r = await capibot(['config-schema']);
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.stdout) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties).sort()).toEqual([...CONFIG_SECTIONS].sort());
  });
});
