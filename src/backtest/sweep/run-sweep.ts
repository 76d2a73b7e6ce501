// `capibot sweep`: every combination of a parameter grid run as its own backtest, in worker threads,
// ranked by one summary metric (or, with a queue, on workers anywhere: dispatch.ts). Each combination gets a config file (the original with the params
// set: derive-config.ts) and the exact command that reproduces it alone; the workers run exactly
// that command's code. Results are written as sweep.json, sweep.csv and sweep.html; neither depends on timing
// or the number of workers (rows are ranked by metric, then grid order).
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import type { Env } from '../../config/interpolate.ts';
import { ConfigError } from '../../core/errors.ts';
import { parseStrategyParams } from '../../strategy/define.ts';
import { createRunFolder, prepareOutputFolder, REPORTS_ROOT } from '../output-dir.ts';
import { prepareBacktest, type PreparedBacktest } from '../prepare.ts';
import { canonicalJson } from '../report/canonical-json.ts';
import { disabledText } from '../report/table.ts';
import { deriveConfigText } from './derive-config.ts';
import { combinations, loadGrid, type Combination, type Grid } from './grid.ts';
import { localDispatch, type SweepDispatch } from './dispatch.ts';
import type { SweepJob, SweepReply } from './protocol.ts';
import {
  defaultOrder,
  metricValues,
  rankRows,
  type MetricValues,
  type SortOrder,
  type SweepMetric,
} from './rank.ts';
import { renderSweepCsv } from './sweep-csv.ts';
import { renderSweepHtml } from './sweep-html.ts';
import type { SweepResult, SweepRow } from './sweep-result.ts';

export type { SweepResult, SweepRow } from './sweep-result.ts';

export const SWEEP_FILES = {
  json: 'sweep.json',
  csv: 'sweep.csv',
  html: 'sweep.html',
  configs: 'configs',
} as const;

export interface SweepOptions {
  readonly configPath: string;
  readonly gridPath: string;
  /** --data: the recording every run replays (default: the config's). */
  readonly data?: string;
  /** Output folder (created). Default: a new `reports/<UTC timestamp>-sweep/` (wall clock: its name only). */
  readonly out?: string;
  readonly workers: number;
  /** Where the points run (default: `workers` threads here; `--queue`: queue/submit.ts). */
  readonly dispatch?: SweepDispatch;
  readonly metric: SweepMetric;
  /** Default: descending, ascending for costs (fees, drawdown, rejections). */
  readonly order?: SortOrder;
  readonly env: Env;
  /** Told as each run finishes (in completion order): how many are done. */
  readonly onProgress?: (done: number, total: number, reply: SweepReply) => void;
}

export interface WrittenSweep {
  readonly result: SweepResult;
  readonly files: { readonly json: string; readonly csv: string; readonly html: string };
}

/** The strategy instance the grid varies: named by the grid, or the only enabled one. */
function targetStrategy(prepared: PreparedBacktest, grid: Grid, gridPath: string): string {
  const ids = prepared.strategies.map((s) => s.id);
  if (grid.strategy !== undefined) {
    if (!ids.includes(grid.strategy))
      throw new ConfigError(
        `no enabled strategy "${grid.strategy}" in the config (enabled: ${ids.join(', ')})`,
        `${gridPath} strategy`,
      );
    return grid.strategy;
  }
  if (ids.length !== 1)
    throw new ConfigError(
      `the config enables ${ids.length} strategies: name the one to vary`,
      `${gridPath} strategy`,
    );
  return ids[0] as string;
}

/** `fast=5 slow=20` (values as JSON). */
export function describeParams(params: Combination): string {
  return Object.entries(params)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(' ');
}

/** A shell word: quoted only when needed. */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}-${threadId}.tmp`;
  await writeFile(tmp, text, 'utf8');
  await rename(tmp, path);
}

export async function runSweep(o: SweepOptions): Promise<WrittenSweep> {
  const prepared = await prepareBacktest({
    configPath: o.configPath,
    ...(o.data !== undefined ? { data: o.data } : {}),
    env: o.env,
  });
  const grid = loadGrid(o.gridPath, o.env);
  const strategy = targetStrategy(prepared, grid, o.gridPath);
  const instance = prepared.strategies.find((s) => s.id === strategy);
  const baseParams = (prepared.config.strategies.find((s) => s.id === strategy)?.params ?? {}) as Record<
    string,
    unknown
  >;
  const combos = combinations(grid);
  const configText = readFileSync(o.configPath, 'utf8');
  // Every combination is checked before anything is written or run: a bad value fails the sweep at
  // once, leaving no output behind.
  if (instance !== undefined) {
    for (const [i, params] of combos.entries()) {
      try {
        parseStrategyParams(instance.definition, strategy, { ...baseParams, ...params });
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        throw new ConfigError(`combination ${i + 1} (${describeParams(params)}): ${why}`, o.gridPath);
      }
    }
  }
  // Only now, after every check: a refused sweep leaves no folder behind.
  let out: string;
  if (o.out !== undefined) {
    await prepareOutputFolder(o.out);
    out = o.out;
  } else {
    out = await createRunFolder(REPORTS_ROOT, new Date(), '-sweep');
  }
  const configsDir = join(out, SWEEP_FILES.configs);
  await mkdir(configsDir, { recursive: true });
  const width = String(combos.length).length;

  const planned: { job: SweepJob; params: Combination; config: string; command: string }[] = [];
  for (const [i, params] of combos.entries()) {
    const index = i + 1;
    const config = join(configsDir, `${String(index).padStart(width, '0')}.yaml`);
    const header = `capibot sweep row ${index} of ${combos.length}: ${describeParams(params)} (from ${o.configPath})`;
    await writeAtomically(config, deriveConfigText(configText, o.configPath, strategy, params, header));
    const command = [
      'capibot',
      'backtest',
      '--config',
      config,
      ...(o.data !== undefined ? ['--data', o.data] : []),
    ]
      .map(shellWord)
      .join(' ');
    planned.push({
      job: { kind: 'job', index, configPath: config, ...(o.data !== undefined ? { data: o.data } : {}) },
      params,
      config,
      command,
    });
  }

  let done = 0;
  const dispatch = o.dispatch ?? localDispatch(o.workers);
  const replies = await dispatch(
    planned.map((p) => p.job),
    { prepared, onReply: (r) => o.onProgress?.(++done, planned.length, r) },
  );
  const order = o.order ?? defaultOrder(o.metric);
  const ok: (Omit<SweepRow, 'rank' | 'metrics'> & { metrics: MetricValues })[] = [];
  const failed: SweepRow[] = [];
  for (const r of replies) {
    const p = planned[r.index - 1];
    if (p === undefined) continue;
    const base = { index: r.index, params: p.params, config: p.config, command: p.command };
    if (r.kind === 'failed') failed.push({ ...base, rank: null, metrics: null, error: r.message });
    else if (r.summary.strategiesDisabled.length > 0)
      failed.push({
        ...base,
        rank: null,
        metrics: metricValues(r.summary),
        error: `strategy disabled: ${disabledText(r.summary.strategiesDisabled)}`,
      });
    else ok.push({ ...base, metrics: metricValues(r.summary) });
  }
  // A fixed key order for sweep.json.
  const rows: SweepRow[] = [...rankRows(ok, o.metric, order), ...failed].map((r) => ({
    rank: r.rank,
    index: r.index,
    params: r.params,
    metrics: r.metrics,
    ...(r.error !== undefined ? { error: r.error } : {}),
    config: r.config,
    command: r.command,
  }));
  const result: SweepResult = {
    config: o.configPath,
    grid: o.gridPath,
    data: prepared.data,
    strategy,
    metric: o.metric,
    order,
    combinations: combos.length,
    rows,
  };
  const files = {
    json: join(out, SWEEP_FILES.json),
    csv: join(out, SWEEP_FILES.csv),
    html: join(out, SWEEP_FILES.html),
  };
  await writeAtomically(files.json, canonicalJson(result) + '\n');
  await writeAtomically(files.csv, renderSweepCsv(result, grid));
  await writeAtomically(files.html, renderSweepHtml(result, grid));
  return { result, files };
}
