// A sweep worker thread: runs the backtests it is sent, one at a time, and answers with each
// summary. It runs the very functions `capibot backtest` runs (prepareBacktest, runSpooledBacktest,
// the report's summary), so a row and the command that reproduces it give the same figures; the
// run's fills and orders stay spooled out of memory (issue #24).
// Started by pool.ts: compiled (dist/…/worker.js) with no loader, or from source through a
// tsx-registering bootstrap.
import { parentPort } from 'node:worker_threads';
import { isCapibotError } from '../../core/errors.ts';
import { prepareBacktest } from '../prepare.ts';
import { summarizeRun } from '../report/index.ts';
import { runSpooledBacktest } from '../run-backtest.ts';
import type { SweepJob, SweepReply } from './protocol.ts';

async function run(job: SweepJob): Promise<SweepReply> {
  try {
    const prepared = await prepareBacktest({
      configPath: job.configPath,
      ...(job.data !== undefined ? { data: job.data } : {}),
      env: process.env,
    });
    const run = await runSpooledBacktest(prepared);
    try {
      return { kind: 'done', index: job.index, summary: summarizeRun(run), polls: run.facts.run.tickers };
    } finally {
      run.rows.close();
    }
  } catch (e) {
    return {
      kind: 'failed',
      index: job.index,
      message: e instanceof Error ? e.message : String(e),
      exitCode: isCapibotError(e) ? e.exitCode : 1,
    };
  }
}

const port = parentPort;
if (port === null) throw new Error('the sweep worker must run in a worker thread');
port.on('message', (job: SweepJob) => {
  void run(job).then((reply) => port.postMessage(reply));
});
