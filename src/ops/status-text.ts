// The human form of `capibot status`: a block of labelled lines, then the open orders and the
// positions as aligned tables. Money is printed exactly as stored (decimal strings).
import type { StatusReport } from './status-report.ts';

/** Aligned columns; the header row first. */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export function formatAge(ms: number): string {
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 120_000) return `${(ms / 1_000).toFixed(1)} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  if (ms < 2 * 86_400_000) return `${(ms / 3_600_000).toFixed(1)} h`;
  return `${(ms / 86_400_000).toFixed(1)} d`;
}

const iso = (ms: number): string => new Date(ms).toISOString();

function runnerLine(s: StatusReport): string {
  const r = s.runner;
  if (r.state === 'none') return 'not running (no lease)';
  const who = `pid ${r.pid ?? '?'} on ${r.hostname ?? '?'}`;
  const beat = r.heartbeatAgeMs !== undefined ? `heartbeat ${formatAge(r.heartbeatAgeMs)} ago` : '';
  if (r.state === 'stale') return `not running (stale lease of ${who}, ${beat}; the next run takes it over)`;
  const since = r.acquiredAt !== undefined ? `, since ${iso(r.acquiredAt)}` : '';
  return `running: ${who} (${beat}${since})`;
}

function killLine(s: StatusReport): string {
  const parts: string[] = [];
  if (s.kill.pending !== undefined) {
    parts.push(`request from pid ${s.kill.pending.pid} at ${iso(s.kill.pending.at)} NOT YET HANDLED`);
  }
  if (s.kill.lastAck !== undefined) {
    const a = s.kill.lastAck;
    parts.push(`last kill at ${iso(a.at)} (${a.by}, ${a.canceling} open orders canceled)`);
  }
  return parts.length === 0 ? 'never used' : parts.join('; ');
}

function counts(map: Readonly<Record<string, number | undefined>>): string {
  const e = Object.entries(map).filter(([, n]) => n !== undefined && n > 0);
  return e.length === 0 ? 'none' : e.map(([k, n]) => `${k} ${n}`).join(', ');
}

export function renderStatusText(s: StatusReport): string {
  const lines: [string, string][] = [
    ['Store', s.store],
    ['Runner', runnerLine(s)],
    ['Trading state', s.tradingState],
    [
      'Last reconcile',
      s.lastReconciledAt === null
        ? 'never'
        : `${iso(s.lastReconciledAt)} (venue clock; ${formatAge(Math.max(0, s.now - s.lastReconciledAt))} ago by this clock)`,
    ],
    ['Kill switch', killLine(s)],
    ['Orders', counts(s.ordersByStatus)],
    [
      'PnL (fills)',
      `realized ${s.pnl.realizedPnl}, fees ${s.pnl.fees}, realized − fees ${s.pnl.realizedNet}; volume ${s.pnl.volume} over ${s.pnl.fills} fills`,
    ],
  ];
  const snap = s.runner.snapshot;
  if (snap !== undefined) {
    const b = snap.budget;
    const pool = (name: string, p: { used: number; limit: number; remaining: number }): string =>
      `${name} ${p.used}/${p.limit} (${p.remaining} left)`;
    lines.push(
      [
        'PnL (marked)',
        `unrealized ${snap.pnl.unrealized}, net ${snap.pnl.net} (runner snapshot ${formatAge(snap.ageMs)} old)`,
      ],
      [
        'Weight budget',
        `${pool('IP', b.ip)}, ${pool('UID', b.uid)}, ${pool('order rate', b.orderRate)}${b.backoffMs > 0 ? `, 429 back-off ${b.backoffMs} ms` : ''}`,
      ],
      ['Queue', counts({ ...snap.queue })],
    );
  } else {
    lines.push(['Weight budget', 'unknown (no runner snapshot in the store)']);
  }
  if (s.lastPrune !== undefined) {
    const p = s.lastPrune;
    lines.push([
      'Pruned',
      `history before ${iso(p.before)} (at ${iso(p.at)}: ${p.orders} orders, ${p.fills} fills, ${p.journal} journal lines); ` +
        `positions and realised PnL carried in ${p.carriedLegs} row(s), volume and fill counts cover what is kept`,
    ]);
  }
  if (s.planOrders.resting > 0) {
    lines.push([
      'Plan orders (ours)',
      `${s.planOrders.resting} resting at the venue until triggered, ${s.planOrders.protective} of them stops/targets of open positions`,
    ]);
  }
  if (s.planOrders.total > 0) {
    lines.push([
      'Plan orders (venue)',
      `${s.planOrders.untriggered} untriggered of ${s.planOrders.total} seen`,
    ]);
  }
  const width = Math.max(...lines.map(([l]) => l.length));
  const out = lines.map(([l, v]) => `${l.padEnd(width)}  ${v}`);

  out.push('', `Open orders (${s.openOrders.length})`);
  if (s.openOrders.length > 0) {
    out.push(
      ...renderTable(
        [
          'CLIENT_OID',
          'ORDER_ID',
          'STRATEGY',
          'SYMBOL',
          'SIDE',
          'TYPE',
          'PRICE',
          'SIZE',
          'FILLED',
          'STATUS',
          'CREATED',
        ],
        s.openOrders.map((o) => [
          o.clientOid,
          o.orderId ?? '-',
          o.strategy,
          o.symbol,
          o.side,
          o.triggerPrice !== null ? `plan @${o.triggerPrice}` : o.orderType,
          o.price ?? 'market',
          o.size,
          o.filledQty,
          o.status,
          iso(o.createdAt),
        ]),
      ),
    );
  }
  const held = s.positions.filter((p) => p.qty !== '0');
  out.push('', `Positions (${held.length} open, ${s.positions.length} with fills)`);
  if (s.positions.length > 0) {
    out.push(
      ...renderTable(
        ['STRATEGY', 'SYMBOL', 'LEG', 'QTY', 'AVG_ENTRY', 'REALIZED', 'FEES', 'FILLS'],
        s.positions.map((p) => [
          p.strategy ?? '(unattributed)',
          p.symbol,
          p.leg,
          p.qty,
          p.avgEntry ?? '-',
          p.realizedPnl,
          p.fees,
          String(p.fills),
        ]),
      ),
    );
  }
  if (s.skippedFills.length > 0) {
    out.push('', `Fills left out of the positions (${s.skippedFills.length}):`, ...s.skippedFills);
  }
  return out.join('\n');
}
