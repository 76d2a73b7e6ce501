// One backtest in its own process, for bench/replay.ts: its own peak RSS is the replay's alone. It
// runs what `capibot backtest` runs (runSpooledBacktest: fills and orders spooled out of the heap),
// without writing the report.
//   node bin/run-ts.js bench/replay-child.ts CONFIG RECORDING
// Prints one JSON line: polls, tickers, wall and CPU milliseconds of the replay (strategy loading
// excluded; the process's, and its main thread's alone where /proc tells it), and the process's
// peak resident set size in bytes.
import { engineModules } from './engine-modules.ts';
import { threadCpuMs } from './thread-cpu.ts';

const [config, recording] = process.argv.slice(2);
if (config === undefined || recording === undefined) {
  process.stderr.write('usage: node bin/run-ts.js bench/replay-child.ts CONFIG RECORDING\n');
  process.exit(2);
}
const { prepareBacktest, runSpooledBacktest, tree } = await engineModules();
const prepared = await prepareBacktest({ configPath: config, data: recording, env: process.env });
const cpu0 = process.cpuUsage();
const main0 = threadCpuMs();
const t0 = performance.now();
const run = await runSpooledBacktest(prepared);
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const main1 = threadCpuMs();
// maxRSS is in kilobytes; read before the spool is counted (its fills are read back from disk).
const maxRssBytes = process.resourceUsage().maxRSS * 1024;
let fills = 0;
run.rows.forEachFill(() => fills++);
run.rows.close();
console.log(
  JSON.stringify({
    polls: run.facts.run.tickers,
    orders: run.orderCounts.placed,
    fills,
    equitySamples: run.facts.equity.length,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    ...(main0 !== undefined && main1 !== undefined ? { mainThreadCpuMs: main1 - main0 } : {}),
    maxRssBytes,
    tree,
  }),
);
