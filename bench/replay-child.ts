// One backtest in its own process, for bench/replay.ts: its own peak RSS is the replay's alone.
//   node bin/run-ts.js bench/replay-child.ts CONFIG RECORDING
// Prints one JSON line: polls, tickers, wall and CPU milliseconds of the replay (strategy loading
// excluded), and the process's peak resident set size in bytes.
import { engineModules } from './engine-modules.ts';

const [config, recording] = process.argv.slice(2);
if (config === undefined || recording === undefined) {
  process.stderr.write('usage: node bin/run-ts.js bench/replay-child.ts CONFIG RECORDING\n');
  process.exit(2);
}
const { prepareBacktest, runBacktest, tree } = await engineModules();
const prepared = await prepareBacktest({ configPath: config, data: recording, env: process.env });
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const record = await runBacktest(prepared);
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    polls: record.run.tickers,
    orders: record.orders.length,
    fills: record.fills.length,
    equitySamples: record.equity.length,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    // maxRSS is in kilobytes.
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    tree,
  }),
);
