// One backtest of bench/orders.ts in its own process, so its CPU time and peak RSS are its own.
//   node --expose-gc bin/run-ts.js bench/orders-child.ts CONFIG RECORDING
// Prints one JSON line: polls, orders (by final status), fills, rejected placements, strategies
// disabled, wall and CPU milliseconds of the replay (strategy loading excluded), the process's peak
// resident set size, the polls and CPU milliseconds of the replay's first half (up to the end of the
// batch that crosses half the polls), and two memory diagnostics: the highest RSS sampled after each
// batch of polls (the replay itself, before the run record is built) and the live heap once the
// record is built (after a full collection, with --expose-gc; the heap in use, garbage included,
// without it).
import { engineModules } from './engine-modules.ts';

const [config, recording] = process.argv.slice(2);
if (config === undefined || recording === undefined) {
  process.stderr.write('usage: node bin/run-ts.js bench/orders-child.ts CONFIG RECORDING\n');
  process.exit(2);
}
const { prepareBacktest, runBacktest, tree } = await engineModules();
const prepared = await prepareBacktest({ configPath: config, data: recording, env: process.env });
let replayRssBytes = 0;
/** CPU milliseconds after each batch, and the polls replayed by then. */
const progress: { polls: number; cpuMs: number }[] = [];
const cpuMs = (c: NodeJS.CpuUsage): number => (c.user + c.system) / 1000;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const record = await runBacktest({
  ...prepared,
  onProgress: (polls) => {
    progress.push({ polls, cpuMs: cpuMs(process.cpuUsage(cpu0)) });
    replayRssBytes = Math.max(replayRssBytes, process.memoryUsage.rss());
  },
});
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
// The first batch end at or past half the polls: CPU of the first half, against the rest.
const firstHalf = progress.find((p) => p.polls >= record.run.tickers / 2);
// maxRSS is in kilobytes; read before the collection below, which is not the replay's.
const maxRssBytes = process.resourceUsage().maxRSS * 1024;
// The record holds only the orders the report reads (with a fill, or open): the counts cover all.
const counts = record.orderCounts;
const byStatus: Record<string, number> = {};
if (counts !== undefined) {
  byStatus['canceled'] = counts.canceled;
  byStatus['rejected'] = counts.rejected;
  byStatus['filledOrOpen'] = counts.placed - counts.canceled - counts.rejected;
} else {
  for (const o of record.orders) byStatus[o.status] = (byStatus[o.status] ?? 0) + 1;
}
(globalThis as { gc?: () => void }).gc?.();
const heapUsedAtEndBytes = process.memoryUsage().heapUsed;
const rejections = Object.values(record.rejectionsByReason).reduce((a, b) => a + b, 0);
console.log(
  JSON.stringify({
    polls: record.run.tickers,
    orders: record.orderCounts?.placed ?? record.orders.length,
    byStatus,
    fills: record.fills.length,
    rejections,
    rejectionsByReason: record.rejectionsByReason,
    strategiesDisabled: record.strategiesDisabled.length,
    requests: Object.values(record.requestsByEndpoint).reduce((a, b) => a + b, 0),
    wallMs,
    cpuMs: cpuMs(cpu),
    firstHalf,
    maxRssBytes,
    replayRssBytes,
    heapUsedAtEndBytes,
    tree,
  }),
);
