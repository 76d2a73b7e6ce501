// `capibot worker`, run: take points from the queue and run them until SIGTERM. The options:
// ./worker.ts.
import { hostname } from 'node:os';
import { queueConnection, probeRedis } from '../../backtest/sweep/queue/connection.ts';
import { safeUrl } from '../../backtest/sweep/queue/safe-url.ts';
import { startQueueWorker, type PointEvent } from '../../backtest/sweep/queue/serve.ts';
import { createRootLogger } from '../../obs/logger.ts';
import { installSignals } from '../../runner/signals.ts';
import type { CliContext } from '../command.ts';
import type { WorkerFlags } from './worker.ts';

function pointLine(e: PointEvent): string {
  const row = `sweep ${e.sweep} row ${e.index}`;
  if (e.kind === 'started') return `worker: ${row} started`;
  if (e.kind === 'refused') return `worker: ${row} refused: ${e.message}`;
  return e.reply.kind === 'done' ? `worker: ${row} done` : `worker: ${row} failed: ${e.reply.message}`;
}

export async function serveWorker(flags: WorkerFlags, ctx: CliContext): Promise<void> {
  const connection = queueConnection(flags.queue);
  const root = createRootLogger({ level: flags.logLevel, base: { app: 'capibot-worker' } });
  await probeRedis(connection);
  const name = `${hostname()}:${process.pid}`;
  const worker = await startQueueWorker({
    connection,
    concurrency: flags.concurrency,
    lockMs: flags.lockMs,
    stalledMs: flags.stalledMs,
    maxStalled: flags.maxStalled,
    cwd: process.cwd(),
    name,
    log: root.logger,
    onPoint: (e) => ctx.out.info(pointLine(e)),
  });
  ctx.out.info(
    `worker: ${name} ready on ${safeUrl(flags.queue)} (concurrency ${flags.concurrency}); SIGTERM stops it`,
  );
  await new Promise<void>((resolve) => {
    const remove = installSignals({
      onStop: (signal) => {
        ctx.out.info(`worker: ${signal}: finishing the running points (again to abandon them)`);
        void worker.stop().then(() => {
          remove();
          resolve();
        });
      },
      onForce: () => {
        ctx.out.info('worker: abandoning the running points (another worker will run them)');
        void worker.stop(true).then(() => {
          remove();
          resolve();
        });
      },
      onHangup: () => root.reopen(),
    });
  });
  root.flush();
  ctx.out.info('worker: stopped');
}
