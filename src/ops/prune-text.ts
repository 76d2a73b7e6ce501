// The human form of `capibot store prune`: one labelled line per figure.
import type { PruneStoreOutput } from './prune.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

export function renderPruneText(r: PruneStoreOutput): string {
  const verb = r.dryRun ? 'would be removed' : 'removed';
  const statuses = Object.entries(r.ordersByStatus)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ');
  const fillsCut =
    r.fillsBefore < r.before
      ? r.fillsBefore <= 0
        ? ' (no fills cursor in the store: every fill stays)'
        : ` (fills only before ${iso(r.fillsBefore)}: the next fills poll reads the later ones again)`
      : '';
  const lines: [string, string][] = [
    ['Store', `${r.store}${r.dryRun ? ' (dry run: nothing changed)' : ''}`],
    ['Cutoff', `${iso(r.before)}${fillsCut}`],
    ['Orders', `${r.orders} ${verb}${statuses !== '' ? ` (${statuses})` : ''}`],
    ['Fills', `${r.fills} ${verb}`],
    ['Journal lines', `${r.journal} ${verb}`],
    ['Plan orders', `${r.planOrders} ${verb}`],
    [
      'Carried legs',
      `${r.carriedLegs} (positions, realised PnL and fees of the removed fills, one row per leg)`,
    ],
  ];
  if (r.keptTerminalOrders > 0 || r.keptFills > 0) {
    lines.push([
      'Kept',
      `${r.keptTerminalOrders} terminal order(s) and ${r.keptFills} fill(s) older than the cutoff: reconciliation ` +
        'can still read them from the exchange, or a position leg needs them in order',
    ]);
  }
  const size = `${formatBytes(r.bytesBefore)} → ${formatBytes(r.bytesAfter)}`;
  lines.push([
    'File',
    r.dryRun
      ? formatBytes(r.bytesBefore)
      : r.vacuumed
        ? `${size} (vacuumed)`
        : `${size}; freed pages are reused by new rows (--vacuum returns them to the file system)`,
  ]);
  const width = Math.max(...lines.map(([l]) => l.length));
  return lines.map(([l, v]) => `${l.padEnd(width)}  ${v}`).join('\n');
}
