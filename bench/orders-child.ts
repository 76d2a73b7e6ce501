// One backtest of bench/orders.ts in its own process, so its CPU time and peak RSS are its own: run
// as `capibot backtest` runs it (the run spooled, then its report written, into a temporary folder).
//   node --expose-gc bin/run-ts.js bench/orders-child.ts CONFIG RECORDING
// Prints one JSON line: polls, orders (by final status), fills, rejected placements, strategies
// disabled, wall and CPU milliseconds of the replay (strategy loading excluded), the process's peak
// resident set size, the polls and CPU milliseconds of the replay's first half (up to the end of the
// batch that crosses half the polls), and two memory diagnostics: the highest RSS sampled after each
// batch of polls (the replay itself, before the run is spooled) and the live heap once it is spooled
// (after a full collection, with --expose-gc; the heap in use, garbage included, without it); then
// the peak RSS once the report is written too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineModules } from './engine-modules.ts';

const [config, recording] = process.argv.slice(2);
if (config === undefined || recording === undefined) {
  process.stderr.write('usage: node bin/run-ts.js bench/orders-child.ts CONFIG RECORDING\n');
  process.exit(2);
}
const { prepareBacktest, runSpooledBacktest, writeReport, tree } = await engineModules();
const prepared = await prepareBacktest({ configPath: config, data: recording, env: process.env });
let replayRssBytes = 0;
/** CPU milliseconds after each batch, and the polls replayed by then. */
const progress: { polls: number; cpuMs: number }[] = [];
const cpuMs = (c: NodeJS.CpuUsage): number => (c.user + c.system) / 1000;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const run = await runSpooledBacktest({
  ...prepared,
  onProgress: (polls) => {
    progress.push({ polls, cpuMs: cpuMs(process.cpuUsage(cpu0)) });
    replayRssBytes = Math.max(replayRssBytes, process.memoryUsage.rss());
  },
});
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
// The first batch end at or past half the polls: CPU of the first half, against the rest.
const firstHalf = progress.find((p) => p.polls >= run.facts.run.tickers / 2);
// maxRSS is in kilobytes; read before the collection below, which is not the replay's.
const maxRssBytes = process.resourceUsage().maxRSS * 1024;
const counts = run.orderCounts;
const byStatus: Record<string, number> = {
  canceled: counts.canceled,
  rejected: counts.rejected,
  filledOrOpen: counts.placed - counts.canceled - counts.rejected,
};
(globalThis as { gc?: () => void }).gc?.();
const heapUsedAtEndBytes = process.memoryUsage().heapUsed;
const facts = run.facts;
const rejections = Object.values(facts.rejectionsByReason).reduce((a, b) => a + b, 0);
const dir = mkdtempSync(join(tmpdir(), 'capibot-bench-report-'));
let fills: number;
try {
  fills = (await writeReport(dir, run)).summary.fills;
} finally {
  run.rows.close();
  rmSync(dir, { recursive: true, force: true });
}
const withReportRssBytes = process.resourceUsage().maxRSS * 1024;
console.log(
  JSON.stringify({
    polls: facts.run.tickers,
    orders: counts.placed,
    byStatus,
    fills,
    rejections,
    rejectionsByReason: facts.rejectionsByReason,
    strategiesDisabled: facts.strategiesDisabled.length,
    requests: Object.values(facts.requestsByEndpoint).reduce((a, b) => a + b, 0),
    wallMs,
    cpuMs: cpuMs(cpu),
    firstHalf,
    maxRssBytes,
    replayRssBytes,
    heapUsedAtEndBytes,
    withReportRssBytes,
    tree,
  }),
);
