import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Command } from 'commander';
import pino from 'pino';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliOutput } from '../../src/cli/output.ts';
import { registerImport } from '../../src/cli/commands/import.ts';
import { registerRecord } from '../../src/cli/commands/record.ts';
import { BadInputError } from '../../src/core/errors.ts';
import type { RecordedPoll, Ticker } from '../../src/core/market.ts';
import { tickerFromWire } from '../../src/exchange/weex/mappers.ts';
import { runRecorder } from '../../src/market/recorder.ts';
import { openRecording, readRecording } from '../../src/market/recording/reader.ts';
import { collect, tempDir, wire } from './helpers.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

describe('recorder (in process)', () => {
  it('writes one filtered poll per fetch, never lets t go backwards, stops on abort, and continues on the next run', async () => {
    const out = join(tempDir(), 'rec.ndjson');
    let calls = 0;
    const abort = new AbortController();
    const times = [1000, 2000, 1500, 3000]; // the wall clock steps back once
    let tick = 0;
    const fetchTickers = (): Promise<readonly Ticker[]> => {
      calls++;
      if (calls === 4) abort.abort();
      return Promise.resolve([
        tickerFromWire(wire('cmt_btcusdt', calls, '1.5')),
        tickerFromWire(wire('cmt_ethusdt', calls, '2.5')),
      ]);
    };
    const first = await runRecorder({
      out,
      fetchTickers,
      intervalMs: 5,
      symbols: ['cmt_ethusdt'],
      signal: abort.signal,
      clock: { now: () => times[Math.min(tick++, times.length - 1)]! },
    });
    expect(first.appended).toBe(false);
    const polls = await collect(out);
    expect(polls.length).toBe(first.polls);
    expect(polls.length).toBeGreaterThanOrEqual(2);
    expect(polls.slice(0, 3).map((p) => p.t)).toEqual([1000, 2000, 2000]);
    expect(polls.every((p) => p.tickers.length === 1 && p.tickers[0]!.symbol === 'cmt_ethusdt')).toBe(true);
    const rec = await openRecording(out);
    expect(rec.meta).toMatchObject({
      format: 'capibot-recording/1',
      intervalMs: 5,
      symbols: ['cmt_ethusdt'],
    });
    await rec.close();

    const second = await runRecorder({
      out,
      fetchTickers: () => Promise.resolve([]),
      intervalMs: 5,
      durationMs: 30,
      symbols: ['cmt_ethusdt'],
      clock: { now: () => 500 },
    });
    expect(second.appended).toBe(true);
    const after = await collect(out);
    expect(after.length).toBe(polls.length + second.polls);
    // Continued after the last t of the file even though the clock says 500.
    expect(after.at(-1)!.t).toBe(polls.at(-1)!.t);
  });

  it('leaves out a ticker the reader would refuse (a price at or below 0), so the file stays readable', async () => {
    const out = join(tempDir(), 'rec.ndjson');
    const warnings: unknown[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line)) });
    let calls = 0;
    const run = await runRecorder({
      out,
      fetchTickers: () => {
        calls++;
        return Promise.resolve([
          tickerFromWire(wire('cmt_btcusdt', calls, '100')),
          tickerFromWire(wire('cmt_ethusdt', calls, '2.5', { best_bid: '0' })),
        ]);
      },
      intervalMs: 5,
      durationMs: 40,
      clock: { now: () => 1_000 + calls },
      logger,
    });
    const polls = await collect(out);
    expect(polls.length).toBe(run.polls);
    expect(polls.length).toBeGreaterThanOrEqual(2);
    expect(polls.every((p) => p.tickers.map((t) => t.symbol).join() === 'cmt_btcusdt')).toBe(true);
    expect(warnings).toEqual([
      expect.objectContaining({
        symbol: 'cmt_ethusdt',
        best_bid: '0',
        msg: expect.stringMatching(/^record: ticker left out/),
      }),
    ]);
  });

  it('keeps polling through fetch failures (the poller retries)', async () => {
    const out = join(tempDir(), 'rec.ndjson.gz');
    let calls = 0;
    const r = await runRecorder({
      out,
      fetchTickers: () =>
        ++calls % 2 === 1
          ? Promise.reject(new Error('flaky'))
          : Promise.resolve([tickerFromWire(wire('a', calls, '1'))]),
      intervalMs: 5,
      retry: { initialDelayMs: 2 },
      durationMs: 200,
      clock: { now: () => Date.now() },
    });
    expect(r.polls).toBeGreaterThan(0);
    expect((await collect(out)).length).toBe(r.polls);
  });
});

// ---------------------------------------------------------------------------------------------
// The real command in a child process, against a loopback tickers endpoint.

let server: Server | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

async function tickersServer(): Promise<string> {
  server = createServer((_req, res) => {
    const now = Date.now();
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify([
        wire('cmt_btcusdt', now, '90755.3', { markPrice: '90755.2' }),
        wire('cmt_ethusdt', now, '3000.1'),
      ]),
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function capibot(args: readonly string[]): {
  child: ChildProcess;
  exit: Promise<number | null>;
  stderr: () => string;
} {
  const child = spawn(process.execPath, [join(repoRoot, 'bin/capibot.js'), ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exit, stderr: () => err };
}

/** Polls readable in `path` so far (a file being written is read leniently). */
async function pollsSoFar(path: string): Promise<RecordedPoll[]> {
  if (!existsSync(path)) return [];
  try {
    return await collect(path);
  } catch {
    return [];
  }
}

async function waitForPolls(
  path: string,
  n: number,
  stderr: () => string,
  timeoutMs = 40_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while ((await pollsSoFar(path)).length < n) {
    if (Date.now() > until)
      throw new Error(`fewer than ${n} polls in ${path} after ${timeoutMs} ms; stderr: ${stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// Child processes start slowly on a loaded machine: these tests get a longer timeout.
describe('capibot record (child process)', { timeout: 90_000 }, () => {
  it('SIGINT mid-recording leaves a complete gzip file; a second run continues it', async () => {
    const base = await tickersServer();
    const out = join(tempDir(), 'live.ndjson.gz');
    const run = capibot(['record', '--out', out, '--base-url', base, '--interval-ms', '400']);
    await waitForPolls(out, 2, run.stderr);
    run.child.kill('SIGINT');
    expect(await run.exit, run.stderr()).toBe(0);
    expect(run.stderr()).toMatch(/wrote \d+ polls/);
    // Strict read: the gzip trailer was written, no torn line.
    const polls: RecordedPoll[] = [];
    for await (const p of readRecording(out, { truncatedGzip: 'error' })) polls.push(p);
    expect(polls.length).toBeGreaterThanOrEqual(2);
    expect(polls[0]!.tickers.map((t) => t.symbol)).toEqual(['cmt_btcusdt', 'cmt_ethusdt']);

    const args = ['record', '--out', out, '--base-url', base, '--interval-ms', '400', '--duration-s', '1'];
    // Continuing it with other symbols would make its meta line wrong: refused, the file untouched.
    const bytes = readFileSync(out);
    const other = capibot([...args, '--symbols', 'cmt_ethusdt']);
    expect(await other.exit, other.stderr()).toBe(2);
    expect(other.stderr()).toMatch(
      /holds every symbol; continuing it with --symbols cmt_ethusdt would make its meta line wrong/,
    );
    expect(readFileSync(out).equals(bytes)).toBe(true);

    const again = capibot(args);
    expect(await again.exit, again.stderr()).toBe(0);
    expect(again.stderr()).toMatch(/appended \d+ polls/);
    const all = await collect(out);
    expect(all.length).toBeGreaterThan(polls.length);
    expect(all.slice(polls.length).every((p) => p.tickers.length === 2)).toBe(true);
  });

  it('--format parquet records into a journal and converts it at the end', async () => {
    const base = await tickersServer();
    const out = join(tempDir(), 'live.parquet');
    const run = capibot([
      'record',
      '--out',
      out,
      '--base-url',
      base,
      '--interval-ms',
      '400',
      '--duration-s',
      '2',
    ]);
    expect(await run.exit, run.stderr()).toBe(0);
    expect(run.stderr()).toMatch(/converted \d+ polls to .*live\.parquet/);
    expect(existsSync(`${out}.ndjson`)).toBe(false);
    const polls = await collect(out);
    expect(polls.length).toBeGreaterThanOrEqual(2);
    expect(polls[0]!.tickers.map((t) => t.symbol)).toEqual(['cmt_btcusdt', 'cmt_ethusdt']);
    // A Parquet recording cannot be continued: refused, the file untouched.
    const again = capibot(['record', '--out', out, '--base-url', base, '--duration-s', '1']);
    expect(await again.exit).toBe(2);
    expect(again.stderr()).toMatch(/cannot be continued/);
  });

  it('a recorder killed outright (SIGKILL) still leaves a readable recording', async () => {
    const base = await tickersServer();
    const out = join(tempDir(), 'killed.ndjson.gz');
    const run = capibot(['record', '--out', out, '--base-url', base, '--interval-ms', '400']);
    await waitForPolls(out, 2, run.stderr);
    run.child.kill('SIGKILL');
    await run.exit;
    // Every poll was flushed with Z_SYNC_FLUSH: the data decodes to whole lines without a trailer.
    expect((await collect(out)).length).toBeGreaterThanOrEqual(2);
  });
});

// ---------------------------------------------------------------------------------------------
// The commands in process (argument handling), through commander.

function program(): {
  run: (args: readonly string[]) => Promise<void>;
  info: string[];
  exitCode: () => number;
} {
  const info: string[] = [];
  let exitCode = 0;
  const out: CliOutput = {
    data: () => undefined,
    json: () => undefined,
    info: (t) => info.push(t),
    error: () => undefined,
  };
  const p = new Command()
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  const setExitCode = (code: number): void => {
    exitCode = code;
  };
  registerRecord(p, { out, setExitCode });
  registerImport(p, { out, setExitCode });
  p.commands.forEach((c) => c.exitOverride());
  return {
    run: async (args) => void (await p.parseAsync(args, { from: 'user' })),
    info,
    exitCode: () => exitCode,
  };
}

describe('capibot record / import arguments', () => {
  it('record refuses bad usage with BadInputError (exit code 2)', async () => {
    const out = join(tempDir(), 'x.ndjson');
    await expect(program().run(['record', '--out', out, '--interval-ms', '10'])).rejects.toThrow(
      /--interval-ms must be at least 400/,
    );
    await expect(program().run(['record', '--out', out, '--duration-s', 'soon'])).rejects.toThrow(
      BadInputError,
    );
    await expect(program().run(['record', '--out', out, '--base-url', 'not a url'])).rejects.toThrow(
      /--base-url/,
    );
    await expect(program().run(['record', '--out', out, '--symbols', 'CMT_BTCUSDT'])).rejects.toThrow(
      /--symbols: "CMT_BTCUSDT" is not a symbol like cmt_btcusdt \(lower case\)/,
    );
  });

  it('record exits 1 when nothing was recorded (every poll failed)', async () => {
    const out = join(tempDir(), 'unreachable.ndjson');
    const cli = program();
    await cli.run(['record', '--out', out, '--base-url', 'http://127.0.0.1:9', '--duration-s', '1']);
    expect(cli.info.join('\n')).toMatch(/wrote 0 polls[\s\S]*nothing was recorded/);
    expect(cli.exitCode()).toBe(1);
  });

  it('import writes a recording, refuses to overwrite without --force, and checks its flags', async () => {
    const dir = tempDir();
    const out = join(dir, 'bars.ndjson.gz');
    const input = join(repoRoot, 'test/fixtures/market/ftx-btc-perp-1m-head300.csv');
    const importBars = (...rest: string[]): string[] => [
      'import',
      '--from',
      'bars-csv',
      '--symbol',
      'cmt_btcusdt',
      ...rest,
    ];
    // A 24 h window needs 1440 bars: 300 bars yield no snapshot, which is refused, and nothing is written.
    await expect(program().run(importBars(input, out))).rejects.toThrow(
      /head300\.csv: no snapshot came out: the first one needs a full statistics window/,
    );
    expect(existsSync(out)).toBe(false);
    // An output that is a folder, or in a folder that does not exist, is refused before reading.
    await expect(program().run(importBars(input, dir))).rejects.toThrow(/is a folder/);
    await expect(program().run(importBars(input, join(dir, 'no', 'x.ndjson')))).rejects.toThrow(
      BadInputError,
    );

    const events = join(dir, 'events.ndjson');
    const ws = join(repoRoot, 'test/fixtures/market/binance-usdm-btcusdt-20240719-slice.txt');
    const importWs = [
      'import',
      '--from',
      'binance-ws',
      '--symbol',
      'cmt_btcusdt',
      '--grid-ms',
      '1000',
      ws,
      events,
    ];
    await program().run(importWs);
    expect((await collect(events)).map((p) => p.t)).toEqual([1721347203000, 1721347204000]);
    expect(await openRecording(events).then(async (r) => (await r.close(), r.meta))).toMatchObject({
      fields24h: 'session-relative',
    });
    await expect(program().run(importWs)).rejects.toThrow(/file exists/);
    await program().run([...importWs, '--force']);
    expect((await collect(events)).map((p) => p.t)).toEqual([1721347203000, 1721347204000]);

    await expect(
      program().run([
        'import',
        '--from',
        'bars-csv',
        '--symbol',
        's',
        '--grid-ms',
        '5',
        input,
        join(dir, 'a'),
      ]),
    ).rejects.toThrow(/apply to --from binance-ws only/);
    await expect(
      program().run(['import', '--from', 'binance-ws', '--symbol', 'bad symbol!', ws, join(dir, 'b')]),
    ).rejects.toThrow(/--symbol/);
    // A failed import leaves no partial output.
    const broken = join(dir, 'broken.csv');
    writeFileSync(broken, 'timestamp,open,high,low,close,volume\n2024-01-01 00:00:00,1,2,0,x,1\n');
    await expect(
      program().run(['import', '--from', 'bars-csv', '--symbol', 's', broken, join(dir, 'c.ndjson')]),
    ).rejects.toThrow(/broken\.csv:2/);
    expect(existsSync(join(dir, 'c.ndjson'))).toBe(false);
  });
});
