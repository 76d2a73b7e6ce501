// Generates the bundled sample recordings in data/ from the real market data in
// ../shared/data/market (provenance: that folder's SOURCES.md), and data/README.md describing them.
//
//   npm run data:samples [-- --source DIR] [-- --out DIR]
//
// The inputs are checked against the sha256 sums published in SOURCES.md before anything is derived,
// and every output is read back through the recording reader. The output is deterministic.
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecordedPoll, RecordingMeta } from '../src/core/market.ts';
import {
  barsCsvFieldNotes,
  importBarsCsv,
  type BarsCsvImportStats,
} from '../src/market/importers/bars-csv.ts';
import {
  binanceWsFieldNotes,
  importBinanceWs,
  newBinanceWsStats,
} from '../src/market/importers/binance-ws.ts';
import { fileSha256 } from '../src/market/importers/input-lines.ts';
import { mergePolls } from '../src/market/importers/merge.ts';
import { RECORDING_FORMAT } from '../src/market/recording/format.ts';
import { openRecording } from '../src/market/recording/reader.ts';
import { openRecordingWriter } from '../src/market/recording/writer.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i !== -1 ? process.argv[i + 1] : undefined;
}

const sourceDir = resolve(arg('--source') ?? join(repoRoot, '..', 'shared', 'data', 'market'));
const outDir = resolve(arg('--out') ?? join(repoRoot, 'data'));

interface UpstreamFile {
  readonly file: string;
  readonly repository: string;
  readonly url: string;
  readonly upstreamPath: string;
  /** Commit that added the file, when it differs from `commit`. */
  readonly addedIn?: string;
  /** Where the file lives at `commit`, when it moved. */
  readonly laterPath?: string;
  readonly commit: string;
  readonly gitBlob: string;
  readonly licence: string;
  readonly sha256: string;
  readonly exchange: string;
  readonly instrument: string;
}

// From ../shared/data/market/SOURCES.md.
const HFT_REPO = {
  repository: 'nkaz001/hftbacktest',
  url: 'https://github.com/nkaz001/hftbacktest',
  commit: '73bfa1728c130d24b491c4680055769f6fa3742b',
  licence: 'MIT (Copyright (c) 2022 nkaz001@protonmail.com)',
  exchange: 'Binance USDⓈ-M futures (raw websocket feed recorded by the hftbacktest collector)',
} as const;

const BTC: UpstreamFile = {
  ...HFT_REPO,
  file: 'hftbacktest_binance-usdm_btcusdt_20240719.gz',
  upstreamPath: 'examples/usdm/btcusdt_20240719.gz',
  gitBlob: 'f2b8c186c6a15c01a1c532ba1ef5c411e8ee6cfa',
  sha256: '33bab357ff6e97be8134efd35d3489794807bedeb47f1a1f6cc81ece65d88b58',
  instrument: 'BTCUSDT USDT-margined perpetual',
};

const ETH: UpstreamFile = {
  ...HFT_REPO,
  file: 'hftbacktest_binance-usdm_ethusdt_20240719.gz',
  upstreamPath: 'examples/usdm/ethusdt_20240719.gz',
  gitBlob: '587579565f00285f821f0a8fd3e7c7b356a61c46',
  sha256: '1412e7aa1091fc74d928b7cda4abf1bc0742cea7d8f770e2c63565b926e8817e',
  instrument: 'ETHUSDT USDT-margined perpetual',
};

const FTX: UpstreamFile = {
  file: 'nautilus_ftx_BTC-PERP_1m_20211231-20220201.csv',
  repository: 'nautechsystems/nautilus_trader',
  url: 'https://github.com/nautechsystems/nautilus_trader',
  upstreamPath: 'tests/test_kit/data/ftx-btc-perp-20211231-20220201_1m.csv',
  addedIn: '94cfcaafe3994e5b55d956ef792c477471d52f80',
  laterPath: 'tests/test_data/btc-perp-20211231-20220201_1m.csv',
  commit: 'a95c8042b00133829d252ae8cf68f78fc176a973',
  gitBlob: 'e43e3141f685a49a1b5df5462b13f13c7f6f45a5',
  licence: 'LGPL-3.0 (GNU Lesser General Public License v3.0)',
  sha256: '65ab55cd5f3531aa64f429772a38331fe82a92973cbb32a79b243073236c8da3',
  exchange: 'FTX (defunct); 1-minute OHLCV bars, USD-quoted; volume appears to be quote (USD) notional',
  instrument: 'BTC-PERP perpetual future',
};

const BINANCE_OUT = 'binance-btc-eth-20240719-1s.ndjson.gz';
const FTX_OUT = 'ftx-btc-perp-202201-1m.ndjson.gz';
const TICK_FTX = '1';
const GRID_MS = 1000;

async function verify(u: UpstreamFile): Promise<string> {
  const path = join(sourceDir, u.file);
  const sum = await fileSha256(path);
  if (sum !== u.sha256) throw new Error(`${path}: sha256 ${sum} differs from SOURCES.md (${u.sha256})`);
  return path;
}

function provenance(u: UpstreamFile, mappedTo: string, sourceSymbol?: string): Record<string, unknown> {
  return {
    file: u.file,
    repository: u.repository,
    url: u.url,
    upstreamPath: u.upstreamPath,
    ...(u.addedIn !== undefined ? { addedIn: u.addedIn } : {}),
    ...(u.laterPath !== undefined ? { laterPath: u.laterPath } : {}),
    commit: u.commit,
    gitBlob: u.gitBlob,
    licence: u.licence,
    sha256: u.sha256,
    exchange: u.exchange,
    instrument: u.instrument,
    ...(sourceSymbol !== undefined ? { sourceSymbol } : {}),
    mappedTo,
  };
}

interface Written {
  readonly file: string;
  readonly bytes: number;
  readonly polls: number;
  readonly tickers: number;
  readonly firstT: number;
  readonly lastT: number;
}

async function write(
  name: string,
  meta: RecordingMeta,
  polls: AsyncIterable<RecordedPoll>,
): Promise<Written> {
  const path = join(outDir, name);
  const w = await openRecordingWriter(path, { mode: 'overwrite', meta });
  for await (const p of polls) w.write(p);
  await w.close();
  // Read back through the reader: the file must be a valid recording.
  const rec = await openRecording(path, { truncatedGzip: 'error' });
  let count = 0;
  let tickers = 0;
  let firstT = -1;
  let lastT = -1;
  for await (const batch of rec.batches) {
    for (const p of batch) {
      if (firstT === -1) firstT = p.t;
      lastT = p.t;
      count++;
      tickers += p.tickers.length;
    }
  }
  return { file: name, bytes: statSync(path).size, polls: count, tickers, firstT, lastT };
}

const iso = (t: number): string => new Date(t).toISOString();

async function main(): Promise<void> {
  mkdirSync(outDir, { recursive: true });
  const btcPath = await verify(BTC);
  const ethPath = await verify(ETH);
  const ftxPath = await verify(FTX);

  // (a) Binance BTC + ETH, 1 s grid of exchange time, one poll per second holding both tickers.
  const btcStats = newBinanceWsStats();
  const ethStats = newBinanceWsStats();
  const binanceMeta: RecordingMeta = {
    format: RECORDING_FORMAT,
    title:
      'Binance USDⓈ-M BTCUSDT + ETHUSDT, 2024-07-19 00:00–00:05 UTC, 1-second snapshots, relabelled cmt_btcusdt / cmt_ethusdt',
    note: 'Real Binance market data replayed under WEEX symbol names; it is not WEEX data.',
    generatedBy: 'scripts/make-samples.ts (npm run data:samples)',
    sources: [provenance(BTC, 'cmt_btcusdt', 'BTCUSDT'), provenance(ETH, 'cmt_ethusdt', 'ETHUSDT')],
    symbols: ['cmt_btcusdt', 'cmt_ethusdt'],
    derivation:
      'capibot import --from binance-ws --grid-ms 1000 per file (bookTicker → best bid/ask, trade → last, depth diffs skipped; no snapshot before both a book ticker and a trade), then the two streams merged: one poll per second of exchange time holding both tickers, only seconds where both symbols have a state.',
    sampling: {
      kind: 'grid',
      gridMs: GRID_MS,
      rule: 'last state at or before each grid boundary of exchange time E; t = the boundary; carried forward over gaps',
    },
    time: 'exchange event time E (epoch ms, UTC); the collector receive time is not used (its clock was about 1.5 s slow)',
    fields24h: 'session-relative',
    fields: binanceWsFieldNotes(),
    synthetic: [],
    absent: ['markPrice', 'indexPrice'],
  };
  const binance = await write(
    BINANCE_OUT,
    binanceMeta,
    mergePolls(
      [
        importBinanceWs(
          btcPath,
          { symbol: 'cmt_btcusdt', gridMs: GRID_MS, sourceSymbol: 'BTCUSDT' },
          btcStats,
        ),
        importBinanceWs(
          ethPath,
          { symbol: 'cmt_ethusdt', gridMs: GRID_MS, sourceSymbol: 'ETHUSDT' },
          ethStats,
        ),
      ],
      { onlyCommonTimes: true },
    ),
  );

  // (b) FTX BTC-PERP minute bars → one snapshot per bar with rolling 24 h statistics.
  const barStats: BarsCsvImportStats = { bars: 0, snapshots: 0 };
  const ftxMeta: RecordingMeta = {
    format: RECORDING_FORMAT,
    title:
      'FTX BTC-PERP 1-minute bars, 2022-01-01 23:01 – 2022-02-01 05:32 UTC, one snapshot per bar, relabelled cmt_btcusdt',
    note: 'Real FTX market data (a USD-quoted perpetual of a defunct exchange) replayed under a WEEX symbol name; it is not WEEX data.',
    generatedBy: 'scripts/make-samples.ts (npm run data:samples)',
    sources: [provenance(FTX, 'cmt_btcusdt')],
    symbols: ['cmt_btcusdt'],
    derivation: `capibot import --from bars-csv --symbol cmt_btcusdt --tick ${TICK_FTX}: one snapshot per bar once a full 24 h window (1440 bars) exists.`,
    sampling: {
      kind: 'bars',
      barMs: 60_000,
      rule: 'one snapshot per bar, starting once a full 24 h window exists',
    },
    time: 'bar labels parsed as UTC and taken as the bar open (upstream does not say; FTX labelled candles by start time); each snapshot is at label + 60 s, the bar close, so no price is shown before its bar ended',
    fields24h: 'rolling-24h-of-bars',
    window: {
      ms: 86_400_000,
      rule: 'bars with label in (label − 24 h, label], i.e. the 1440 bars i−1439..i',
    },
    tick: TICK_FTX,
    fields: barsCsvFieldNotes(TICK_FTX),
    synthetic: ['best_bid', 'best_ask'],
    approximated: ['base_volume'],
    absent: ['markPrice', 'indexPrice'],
  };
  const ftx = await write(
    FTX_OUT,
    ftxMeta,
    importBarsCsv(ftxPath, { symbol: 'cmt_btcusdt', tick: TICK_FTX }, barStats),
  );

  writeFileSync(
    join(outDir, 'README.md'),
    readme(binance, ftx, btcStats.snapshots, ethStats.snapshots, barStats.bars),
  );
  for (const w of [binance, ftx]) {
    console.log(
      `${w.file}: ${w.bytes} bytes, ${w.polls} polls, ${w.tickers} tickers, t ${iso(w.firstT)} … ${iso(w.lastT)}`,
    );
  }
}

function readme(binance: Written, ftx: Written, btcSnaps: number, ethSnaps: number, bars: number): string {
  const kb = (n: number): string => `${(n / 1024).toFixed(0)} KiB`;
  return `# Bundled sample recordings

Generated by \`scripts/make-samples.ts\` (\`npm run data:samples\`) from the real market data in
\`../shared/data/market\` (its \`SOURCES.md\` has the full provenance). Do not edit these files by hand:
change the script and run it again; the output is deterministic. The script checks the sha256 of every
input against \`SOURCES.md\` first, and reads every output back through the recording reader.

Both files are recordings in capibot's format (ARCHITECTURE.md): gzip, a first line \`{"meta":{…}}\` that
repeats the provenance and says how every field was derived, then one \`{"t":…,"tickers":[…]}\` line per
poll with WEEX wire ticker objects. **These are not WEEX market data**: they are Binance and FTX data
replayed under WEEX symbol names, for dry runs and tests.

## \`${binance.file}\`

| | |
|---|---|
| size | ${binance.bytes} bytes (${kb(binance.bytes)}) |
| polls | ${binance.polls} (one per second), ${binance.tickers} tickers |
| time | ${iso(binance.firstT)} … ${iso(binance.lastT)} (exchange time) |
| symbols | \`cmt_btcusdt\` ← Binance USDⓈ-M BTCUSDT, \`cmt_ethusdt\` ← ETHUSDT (perpetuals) |

- **Sources:** \`${BTC.file}\` and \`${ETH.file}\` from
  [${HFT_REPO.repository}](${HFT_REPO.url}) at commit \`${HFT_REPO.commit}\`, upstream paths
  \`${BTC.upstreamPath}\` (git blob \`${BTC.gitBlob}\`) and \`${ETH.upstreamPath}\` (git blob
  \`${ETH.gitBlob}\`). Licence of the repository: ${HFT_REPO.licence}. The market data comes from
  Binance, whose terms may also apply.
- **Derivation:** each file through \`capibot import --from binance-ws --grid-ms 1000\`
  (${btcSnaps} BTC and ${ethSnaps} ETH one-second snapshots), then merged into one poll per second
  holding both tickers, keeping only the seconds where both symbols have a state.
  - \`best_bid\`/\`best_ask\` from bookTicker \`b\`/\`a\`; \`last\` from trade \`p\`; depth diffs skipped;
    nothing before both a book ticker and a trade were seen.
  - Time is Binance's event time \`E\`, not the collector's receive time (its clock was ~1.5 s slow).
    Messages are applied in \`E\` order; each snapshot is the last state at or before its one-second
    boundary; \`t\` is the boundary and the ticker's \`timestamp\` the \`E\` of its latest event.
  - **The 24 h fields are session-relative** (a 5-minute file has no 24 h history): \`high_24h\`,
    \`low_24h\` are the trade-price extremes since the first trade of the file, \`volume_24h\` = Σ p·q
    (USDT) and \`base_volume\` = Σ q since then, \`priceChangePercent\` = last / first trade − 1 as a
    fraction (the WEEX convention).
  - \`markPrice\`/\`indexPrice\` are absent (not in the source).

## \`${ftx.file}\`

| | |
|---|---|
| size | ${ftx.bytes} bytes (${kb(ftx.bytes)}) |
| polls | ${ftx.polls} (one per minute bar once a full 24 h window exists; ${bars} bars read) |
| time | ${iso(ftx.firstT)} … ${iso(ftx.lastT)} |
| symbol | \`cmt_btcusdt\` ← FTX BTC-PERP (USD-quoted perpetual; FTX is defunct) |

- **Source:** \`${FTX.file}\` from [${FTX.repository}](${FTX.url}): added as
  \`${FTX.upstreamPath}\` in commit \`${FTX.addedIn ?? ''}\`, present as \`${FTX.laterPath ?? ''}\` at commit
  \`${FTX.commit}\`; git blob \`${FTX.gitBlob}\`.
  Licence of the repository: ${FTX.licence}; data derived from it is bundled with this notice. The
  market data comes from FTX, whose terms may also apply.
- **Derivation:** \`capibot import --from bars-csv --symbol cmt_btcusdt --tick ${TICK_FTX}\`: one snapshot
  per bar \`i\` (0-based) from \`i\` = 1439 on, i.e. once a full 24 h window of 1440 bars exists:
  - \`last\` = close[i]; \`high_24h\` = max high[i−1439..i]; \`low_24h\` = min low[i−1439..i];
    \`volume_24h\` = Σ volume[i−1439..i] (USD notional, as in the file);
  - \`base_volume\` ≈ Σ volume/close over the same bars (**approximated**);
  - \`priceChangePercent\` = close[i] / open[i−1439] − 1 as a fraction (the WEEX convention);
  - \`best_bid\`/\`best_ask\` = close ∓ 0.5 (half the FTX BTC-PERP tick of 1 USD): **synthetic**, bars have
    no quotes (13 of the 45,031 closes are not whole dollars, e.g. 46797.25, so a few bid/ask values are
    off the 1 USD grid too);
  - bar labels are read as UTC and taken as the bar open (upstream does not say); each snapshot is at
    label + 60 s, the bar close, so no price appears before its bar ended;
  - \`markPrice\`/\`indexPrice\` are absent.
`;
}

await main();
