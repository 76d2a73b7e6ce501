// `capibot status --config FILE [--json]`: what the bot holds and how it stands, read from the store
// without taking its lease, so it answers the same whether `capibot run` is up or down.
// The config, the store and the report are imported when the command runs: its --help loads none of
// them (test/cli/compiled.test.ts).
import type { RegisterCommand } from '../command.ts';

interface StatusFlags {
  readonly config: string;
  readonly json?: boolean;
}

export const registerStatus: RegisterCommand = (program, ctx) => {
  program
    .command('status')
    .description(
      'Show what the store of a config holds: open orders, positions and PnL from the recorded fills, ' +
        'trading state (ACTIVE/REDUCING/HALTED), last reconciliation, kill-switch requests, and whether a ' +
        'runner holds the store (pid, heartbeat age) with its last snapshot (weight budget use, queue, marked PnL). ' +
        'Reads the store without taking its lease: works while `capibot run` is up or down.',
    )
    .requiredOption('-c, --config <file>', 'config file (YAML); its store.path names the store')
    .option('--json', 'print the status as JSON (decimals as strings, times as epoch ms)', false)
    .action(async (flags: StatusFlags) => {
      const [
        { loadConfig },
        { readLeaseHolder, runnerInfo },
        { openStoreWithoutLease },
        { collectStatus },
        { renderStatusText },
      ] = await Promise.all([
        import('../../config/index.ts'),
        import('../../ops/lease-info.ts'),
        import('../../ops/open-store.ts'),
        import('../../ops/status-report.ts'),
        import('../../ops/status-text.ts'),
      ]);
      const config = loadConfig(flags.config, process.env);
      const path = config.store.path;
      const store = openStoreWithoutLease(path);
      try {
        const now = Date.now();
        const runner = runnerInfo(readLeaseHolder(path), { now });
        const report = collectStatus({ store, path, runner, now });
        if (flags.json === true) ctx.out.json(report);
        else ctx.out.data(renderStatusText(report));
      } finally {
        store.close();
      }
    });
};
