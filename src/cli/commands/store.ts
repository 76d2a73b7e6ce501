// `capibot store prune --before DATE (--config FILE | --store PATH) [--dry-run] [--vacuum] [--json]`:
// removes terminal history older than a cutoff from a store, so a long live run's store stays
// bounded. The rules live in src/store/prune-plan.ts and src/ops/prune.ts; this file parses the
// command line and prints the counts.
// The config, the store and the prune are imported when the command runs: its --help loads none of
// them (test/cli/compiled.test.ts).
import { BadInputError } from '../../core/errors.ts';
import type { RegisterCommand } from '../command.ts';

interface PruneFlags {
  readonly before: string;
  readonly config?: string;
  readonly store?: string;
  readonly dryRun?: boolean;
  readonly vacuum?: boolean;
  readonly json?: boolean;
}

export const registerStore: RegisterCommand = (program, ctx) => {
  const store = program
    .command('store')
    .description('Maintenance of the store (the SQLite file named by store.path)');
  store
    .command('prune')
    .description(
      'Remove terminal orders (filled, canceled, rejected — lost orders included), their fills, intent-journal ' +
        'lines and finished plan orders older than a cutoff, in one transaction, and print how many went.',
    )
    .requiredOption(
      '--before <date>',
      'cutoff: YYYY-MM-DD (midnight UTC), an ISO date-time with its zone, epoch ms, or an age (90d, 36h)',
    )
    .option('-c, --config <file>', 'config file (YAML): its store.path, and its polling settings')
    .option('--store <path>', 'the store file itself (instead of --config)')
    .option('--dry-run', 'count what would go; change nothing (works while a runner holds the store)', false)
    .option('--vacuum', 'after the prune, rewrite the file without its free pages (VACUUM)', false)
    .option('--json', 'print the counts as JSON', false)
    .addHelpText(
      'after',
      `
Never removed: an order that is not terminal (created, submitted, unknown, pending, open, canceling),
nor any fill of one; the client_oid sequences (an id is never handed out twice); meta values (trading
state, cursors, kill switch); anything order history or the fills poll could still return (it would
come back as new). Terminal orders still reachable there, and fills a position needs in order, stay
and are counted as kept.
Positions, realised PnL and fees are kept exact: the removed fills of each position leg are replaced
by one carried fill (and, for a strategy's leg, a carried order tagged capibot:carry), so a restart,
\`capibot status\` and the metrics fold the same positions; only volume and fill counts shrink.
The cutoff must lie at least an hour before the store's latest activity (longer with --config when
the reconciler's recent window is). A runner must not hold the store (stop it first; the prune takes
the store's lease while it works). Freed pages are reused by new rows; --vacuum shrinks the file.
Exit codes: 0 done (or nothing to remove), 1 runtime failure (no store, a runner holds it),
2 bad usage (bad or too recent cutoff, neither or both of --config and --store).`,
    )
    .action(async (flags: PruneFlags) => {
      if ((flags.config === undefined) === (flags.store === undefined)) {
        throw new BadInputError('give exactly one of --config FILE and --store PATH', 'store prune');
      }
      const [{ loadConfig }, { parseCutoff, pruneStore }, { renderPruneText }] = await Promise.all([
        import('../../config/index.ts'),
        import('../../ops/prune.ts'),
        import('../../ops/prune-text.ts'),
      ]);
      const now = Date.now();
      const before = parseCutoff(flags.before, now);
      const config = flags.config !== undefined ? loadConfig(flags.config, process.env) : undefined;
      const result = pruneStore({
        path: config?.store.path ?? flags.store ?? '',
        before,
        dryRun: flags.dryRun === true,
        vacuum: flags.vacuum === true,
        ...(config !== undefined ? { polling: config.polling } : {}),
        now,
      });
      if (flags.json === true) ctx.out.json(result);
      else ctx.out.data(renderPruneText(result));
    });
};
