// Flat in orders (issue #24): what an order costs the engine, and whether that cost and the memory
// stay the same however many orders a run makes.
//
//   benchOrders('data/ftx-btc-perp-202201-1m.ndjson.gz', {})   (npm run bench wires it in as `orders`)
//
// Two scenarios on the bundled FTX month (43,592 one-minute polls), every backtest in its own child
// process (bench/orders-child.ts), so that its CPU time and peak RSS are its own:
//
// - **Strategies**: 1, 8 and 32 instances of strategies/ema-cross.ts with different periods (instance
//   k: fast 4 + k mod 8, slow fast × (3 + ⌊k / 8⌋); instance 0 is the strategy's default 4 / 12),
//   notional 50 USDT, IOC entries, the stop watched by the strategy. Every risk setting is at its
//   default except the drawdown breaker, relaxed as in bench/replay.ts (reduce 90 %, halt 95 %), so
//   the instances keep trading all month; 32 × 50 USDT stays far under the position limit. Each run
//   is paired with the same instances made unable to see a cross (minGapBps 1,000,000: same params
//   otherwise, same work per ticker, never an order), the "quiet" run: (CPU − quiet CPU) ÷ orders is
//   what an order costs at that count, with the strategies' own per-ticker work taken out.
// - **Market maker**: bench/market-maker.ts quotes `perTick` immediate-or-cancel orders far from the
//   market on every poll (5 × 43,592 = 217,960 orders, all accepted and canceled by the simulator,
//   none filled), against the same month quoting every 100th poll (1 % of the orders), and the same
//   strategy quoting once (the quiet run).
//
// Figures: CPU is user + system of the child around runBacktest (module and strategy loading
// excluded); peak RSS is the child's maxRSS. Marginal µs per order = (CPU(32) − CPU(1)) ÷ (orders(32)
// − orders(1)) (and 8 against 1; for the market maker, the month against its 1 % copy). Growth (the
// issue's "the same at 100 k orders as at 5 k") = what each order costs between 8 and 32 instances
// (about 29 k → 98 k orders) ÷ what it costs between 1 and 8 (5.9 k → 29 k), each run less its quiet
// twin: ((T₃₂ − Q₃₂) − (T₈ − Q₈)) ÷ (orders₃₂ − orders₈) over ((T₈ − Q₈) − (T₁ − Q₁)) ÷ (orders₈ −
// orders₁). A difference, not a run's own CPU ÷ its orders: that quotient carries the order path's
// one-time cost (compiling it, the first rounds), which a run of few orders spreads over few, and it
// would flatter the growth (32 ÷ 1 gives 0.4). For the market maker, the CPU per poll of the month's
// second half ÷ its first half (bench/orders-child.ts times the halves) asks the same within one run.
// `maxPolls` (the `--quick` run) replays a time-limited copy of the recording instead: the first N
// polls, written gzip to os.tmpdir() and removed afterwards.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipLines, pollLines } from './recording-files.ts';
import { runReplayChild } from './replay-process.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const EMA_CROSS = join(REPO, 'strategies/ema-cross.ts');
const MARKET_MAKER = join(REPO, 'bench/market-maker.ts');
const MiB = 1024 * 1024;

export interface OrdersBenchOptions {
  /** Replay only the first N polls (a time-limited copy of the recording). Default: all of it. */
  readonly maxPolls?: number;
  /** Instance counts of the strategies scenario, smallest first. Default [1, 8, 32]. */
  readonly instances?: readonly number[];
  /** Orders per quoting poll of the market maker. Default 5. */
  readonly perTick?: number;
  /** The market maker's sparse month quotes every N-th poll. Default 100 (1 % of the orders). */
  readonly sparseEvery?: number;
  readonly log?: (line: string) => void;
}

/** What bench/orders-child.ts prints. */
export interface OrdersChildResult {
  readonly polls: number;
  readonly orders: number;
  readonly byStatus: Readonly<Record<string, number>>;
  readonly fills: number;
  readonly rejections: number;
  readonly strategiesDisabled: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  /** Polls and CPU of the replay's first half (absent when no batch ended). */
  readonly firstHalf?: { readonly polls: number; readonly cpuMs: number };
  readonly maxRssBytes: number;
  /** Highest RSS sampled after each batch of polls: the replay, before the run record is built. */
  readonly replayRssBytes: number;
  readonly heapUsedAtEndBytes: number;
  /** Peak RSS once the report is written too (the whole of a `capibot backtest`). */
  readonly withReportRssBytes: number;
  readonly tree: string;
}

/** One backtest of the scenario, as reported. */
export interface OrdersRun {
  readonly orders: number;
  readonly fills: number;
  readonly rejections: number;
  readonly cpuMs: number;
  readonly wallMs: number;
  readonly peakRssMiB: number;
  readonly replayPeakRssMiB: number;
  readonly heapUsedAtEndMiB: number;
  /** Peak RSS with the report written too. */
  readonly withReportPeakRssMiB: number;
  /** CPU per poll of the replay's second half ÷ its first half (the settling after the last poll in the second). */
  readonly secondHalfRatio: number;
}

/** A trading run beside its quiet twin (same strategies, no orders). */
export interface PairedRun extends OrdersRun {
  readonly label: string;
  readonly quietCpuMs: number;
  readonly quietPeakRssMiB: number;
  /** (cpuMs − quietCpuMs) ÷ orders, µs: the order path's one-time cost included. */
  readonly microsPerOrder: number;
}

export interface OrdersFigures {
  /** (CPU(largest) − CPU(smallest)) ÷ (orders(largest) − orders(smallest)), µs (target ≤ 50). */
  readonly marginalMicrosPerOrder: number;
  /** The same, middle count against the smallest. */
  readonly marginalMicrosPerOrderMiddle: number;
  /**
   * CPU per order beyond the quiet runs, from the middle count to the largest ÷ from the smallest to
   * the middle (target ≤ 1.2).
   */
  readonly perOrderGrowth: number;
  /**
   * Its two parts, µs per order beyond the quiet runs: from the smallest count to the middle one, and
   * from the middle one to the largest (each a difference of differences of CPU times).
   */
  readonly microsPerOrderBeyondQuietLow: number;
  readonly microsPerOrderBeyondQuietHigh: number;
  /** Peak RSS, largest ÷ smallest (target ≤ 1.5). */
  readonly peakRssRatio: number;
  /** The same with each run's report written too, as `capibot backtest` does (target ≤ 1.5). */
  readonly peakRssRatioWithReport: number;
  readonly ordersSmallest: number;
  readonly ordersMiddle: number;
  readonly ordersLargest: number;
  /** The market maker's month: orders, peak RSS ÷ the sparse month's (target ≤ 1.2). */
  readonly mmOrders: number;
  readonly mmSparseOrders: number;
  readonly mmPeakRssRatio: number;
  /** (CPU(month) − CPU(sparse)) ÷ (orders(month) − orders(sparse)), µs. */
  readonly mmMarginalMicrosPerOrder: number;
  /**
   * CPU per poll of the market-maker month's second half ÷ its first half: the same orders per poll,
   * with 109 k to 218 k orders made before against 0 to 109 k.
   */
  readonly mmSecondHalfRatio: number;
}

export interface OrdersBenchResult extends OrdersFigures {
  readonly recording: string;
  readonly polls: number;
  readonly tree: string;
  /** The strategies scenario, smallest count first. */
  readonly strategies: readonly (PairedRun & { readonly instances: number })[];
  readonly marketMaker: { readonly month: PairedRun; readonly sparse: PairedRun };
  /** What the scenario cost: CPU of every child's replay, and wall time of the whole section. */
  readonly childCpuSeconds: number;
  readonly wallSeconds: number;
}

const round = (x: number, digits = 3): number => Number(x.toFixed(digits));

function footer(): string[] {
  return [
    '# Every risk setting at its default except the drawdown breaker (it would stop the strategies',
    '# trading in a month that draws down): bench/orders.ts.',
    'risk:',
    '  drawdownReducePct: 90',
    '  drawdownHaltPct: 95',
    'log:',
    '  level: warn',
    '',
  ];
}

/** Params of ema-cross instance k (0-based): instance 0 is the strategy's default 4 / 12. */
export function emaCrossParams(k: number): { fastPeriod: number; slowPeriod: number } {
  const fastPeriod = 4 + (k % 8);
  return { fastPeriod, slowPeriod: fastPeriod * (3 + Math.floor(k / 8)) };
}

/** `n` ema-cross instances at 50 USDT; `quiet`: the same, never seeing a cross. */
export function emaCrossConfigText(n: number, quiet: boolean, file = EMA_CROSS): string {
  const lines = ['# bench/orders.ts: ema-cross instances on one symbol.', 'mode: paper', 'strategies:'];
  for (let k = 0; k < n; k++) {
    const params = {
      ...emaCrossParams(k),
      notional: '50',
      ...(quiet ? { minGapBps: '1000000' } : {}),
    };
    lines.push(
      `  - id: ema${k}`,
      `    file: ${JSON.stringify(file)}`,
      `    params: ${JSON.stringify(params)}`,
    );
  }
  return [...lines, ...footer()].join('\n');
}

/** The market maker quoting `perTick` orders every `every`-th poll. */
export function marketMakerConfigText(perTick: number, every: number, file = MARKET_MAKER): string {
  return [
    '# bench/orders.ts: a market maker quoting far immediate-or-cancel orders.',
    'mode: paper',
    'strategies:',
    '  - id: mm',
    `    file: ${JSON.stringify(file)}`,
    `    params: ${JSON.stringify({ perTick, every })}`,
    ...footer(),
  ].join('\n');
}

async function child(config: string, recording: string): Promise<OrdersChildResult> {
  const stdout = await runReplayChild('bench/orders-child.ts', [config, recording], ['--expose-gc']);
  const line = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(line) as OrdersChildResult;
}

function secondHalfRatio(c: OrdersChildResult): number {
  const h = c.firstHalf;
  if (h === undefined || h.polls <= 0 || h.polls >= c.polls || h.cpuMs <= 0) return Number.NaN;
  return round((c.cpuMs - h.cpuMs) / (c.polls - h.polls) / (h.cpuMs / h.polls));
}

function asRun(c: OrdersChildResult): OrdersRun {
  return {
    orders: c.orders,
    fills: c.fills,
    rejections: c.rejections,
    cpuMs: round(c.cpuMs, 1),
    wallMs: round(c.wallMs, 1),
    peakRssMiB: round(c.maxRssBytes / MiB, 1),
    replayPeakRssMiB: round(c.replayRssBytes / MiB, 1),
    heapUsedAtEndMiB: round(c.heapUsedAtEndBytes / MiB, 1),
    withReportPeakRssMiB: round(c.withReportRssBytes / MiB, 1),
    secondHalfRatio: secondHalfRatio(c),
  };
}

export function paired(label: string, trading: OrdersRun, quiet: OrdersRun): PairedRun {
  return {
    label,
    ...trading,
    quietCpuMs: quiet.cpuMs,
    quietPeakRssMiB: quiet.peakRssMiB,
    microsPerOrder: round(
      ((trading.cpuMs - quiet.cpuMs) * 1000) / Math.max(1, trading.orders - quiet.orders),
      1,
    ),
  };
}

/** The headline figures from the runs (pure: test/bench/orders.test.ts). */
export function ordersFigures(
  strategies: readonly PairedRun[],
  month: PairedRun,
  sparse: PairedRun,
): OrdersFigures {
  const first = strategies[0];
  const last = strategies[strategies.length - 1];
  const middle = strategies[Math.floor((strategies.length - 1) / 2)];
  if (first === undefined || last === undefined || middle === undefined || strategies.length < 3)
    throw new Error('orders: the strategies scenario needs three instance counts at least');
  const marginal = (a: OrdersRun, b: OrdersRun): number =>
    round(((b.cpuMs - a.cpuMs) * 1000) / Math.max(1, b.orders - a.orders), 1);
  const beyondQuiet = (r: PairedRun): number => r.cpuMs - r.quietCpuMs;
  const marginalBeyondQuiet = (a: PairedRun, b: PairedRun): number =>
    (beyondQuiet(b) - beyondQuiet(a)) / Math.max(1, b.orders - a.orders);
  const low = marginalBeyondQuiet(first, middle);
  const high = marginalBeyondQuiet(middle, last);
  return {
    marginalMicrosPerOrder: marginal(first, last),
    marginalMicrosPerOrderMiddle: marginal(first, middle),
    perOrderGrowth: round(high / low),
    microsPerOrderBeyondQuietLow: round(low * 1000, 1),
    microsPerOrderBeyondQuietHigh: round(high * 1000, 1),
    peakRssRatio: round(last.peakRssMiB / first.peakRssMiB),
    peakRssRatioWithReport: round(last.withReportPeakRssMiB / first.withReportPeakRssMiB),
    ordersSmallest: first.orders,
    ordersMiddle: middle.orders,
    ordersLargest: last.orders,
    mmOrders: month.orders,
    mmSparseOrders: sparse.orders,
    mmPeakRssRatio: round(month.peakRssMiB / sparse.peakRssMiB),
    mmMarginalMicrosPerOrder: marginal(sparse, month),
    mmSecondHalfRatio: month.secondHalfRatio,
  };
}

/** The first `maxPolls` polls of `lines` as a gzip recording at `path`. */
async function writePrefix(lines: readonly string[], maxPolls: number, path: string): Promise<void> {
  const out = gzipLines(path);
  await out.line(JSON.stringify({ meta: { source: `bench/orders.ts: the first ${maxPolls} polls` } }));
  for (const l of lines.slice(0, maxPolls)) await out.line(l);
  await out.end();
}

export async function benchOrders(
  recordingPath: string,
  opts: OrdersBenchOptions = {},
): Promise<OrdersBenchResult> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`bench orders: ${line}\n`));
  const instances = opts.instances ?? [1, 8, 32];
  const perTick = opts.perTick ?? 5;
  const sparseEvery = opts.sparseEvery ?? 100;
  const t0 = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'capibot-bench-orders-'));
  let childCpuMs = 0;
  let tree = '';
  let polls = 0;
  const replay = async (name: string, text: string, recording: string): Promise<OrdersRun> => {
    const config = join(dir, `${name}.yaml`);
    writeFileSync(config, text);
    const c = await child(config, recording);
    childCpuMs += c.cpuMs;
    tree = c.tree;
    polls = c.polls;
    if (c.strategiesDisabled > 0) log(`${name}: ${c.strategiesDisabled} strategies disabled during the run`);
    log(
      `${name}: ${c.orders} orders, ${c.fills} fills, ${c.rejections} rejected; ` +
        `${round(c.cpuMs / 1000, 1)} s CPU, ${round(c.wallMs / 1000, 1)} s wall, ` +
        `peak RSS ${round(c.maxRssBytes / MiB, 1)} MiB (replay ${round(c.replayRssBytes / MiB, 1)}, ` +
        `with the report ${round(c.withReportRssBytes / MiB, 1)})`,
    );
    return asRun(c);
  };
  try {
    let recording = resolve(REPO, recordingPath);
    if (opts.maxPolls !== undefined) {
      const lines = pollLines(recording);
      if (opts.maxPolls < lines.length) {
        recording = join(dir, 'prefix.ndjson.gz');
        await writePrefix(lines, opts.maxPolls, recording);
      }
    }
    const strategies: (PairedRun & { instances: number })[] = [];
    for (const n of instances) {
      // The quiet twin first: the pair meets about the same machine.
      const quiet = await replay(`ema-x${n}-quiet`, emaCrossConfigText(n, true), recording);
      const trading = await replay(`ema-x${n}`, emaCrossConfigText(n, false), recording);
      strategies.push({ instances: n, ...paired(`${n} × ema-cross`, trading, quiet) });
    }
    const mmQuiet = await replay('mm-quiet', marketMakerConfigText(perTick, 1_000_000), recording);
    const sparse = paired(
      `market maker, every ${sparseEvery}th poll`,
      await replay('mm-sparse', marketMakerConfigText(perTick, sparseEvery), recording),
      mmQuiet,
    );
    const month = paired(
      'market maker, every poll',
      await replay('mm-month', marketMakerConfigText(perTick, 1), recording),
      mmQuiet,
    );
    const figures = ordersFigures(strategies, month, sparse);
    log(`figures: ${JSON.stringify(figures)}`);
    return {
      recording: recordingPath,
      polls,
      tree,
      ...figures,
      strategies,
      marketMaker: { month, sparse },
      childCpuSeconds: round(childCpuMs / 1000, 1),
      wallSeconds: round((performance.now() - t0) / 1000, 1),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
