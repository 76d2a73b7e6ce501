// `npm run chaos -- [--minutes N] [--seed S] [--json] [--keep]`: the proof that crashes and exchange
// faults cause no duplicate, lost or orphaned order and no fill recorded wrongly
// (ARCHITECTURE.md invariants 2, 5 and 10).
//
//   1. `capibot sim --clock realtime` over the bundled recording (played back and forth so the market
//      moves for the whole run), with the hard fault profile bench/chaos/faults.yaml and the seed;
//   2. chaos phase (N minutes): `capibot run` (paper, venue http, its store in a temp dir) trading the
//      aggressive storm strategy, killed with SIGKILL at seeded moments and restarted each time (a
//      runner that dies on its own is restarted too, and reported);
//   3. settle: one more start with the strategy quiet — recovery, reconciliation past the unknown-grace
//      period, every open order canceled — stopped gracefully by --duration-s;
//   4. the store (read-only) against /sim/v1/orders, /sim/v1/plans and /sim/v1/fills (definitions in
//      bench/chaos/compare.ts) → one JSON object on stdout; exit 0 iff `ok`.
//
// Same seed → same fault dice and kill schedule; where a kill lands in the runner's life varies with
// timing. Without --json a short summary goes to stderr (`npm run -s chaos -- --json` keeps npm's own
// banner off stdout too, for scripts). The temp dir (configs, store, logs) is removed
// unless the run failed or --keep is given.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { compare, type Comparison } from './chaos/compare.ts';
import { CHAOS_PREFIX, chaosConfigYaml, UNKNOWN_GRACE_MS } from './chaos/config.ts';
import {
  exitWithin,
  startRunner,
  startSim,
  stop,
  type Child,
  type Exit,
  type SimChild,
} from './chaos/processes.ts';
import { writePingPongRecording } from './chaos/recording.ts';
import { DEFAULT_KILL_GAPS, killSchedule } from './chaos/schedule.ts';
import { readExchange, readMarketTime, readStore } from './chaos/snapshot.ts';

const SOURCE_RECORDING = 'data/binance-btc-eth-20240719-1s.ndjson.gz';
const FAULTS = 'bench/chaos/faults.yaml';
const STRATEGY = 'bench/chaos/storm-strategy.ts';
/** Market time runs this much faster than the wall clock (more movement per minute). */
const SPEED = 2;
/** Trading time of the settle run: past the unknown-grace period, with room for late fills. */
const SETTLE_S = UNKNOWN_GRACE_MS / 1000 + 8;
/** A start can fail on a lost reply to its first reads (the runner then exits 1): try again. */
const SETTLE_ATTEMPTS = 5;
/** Exchange fills this recent (market ms) at the end may not have been seen yet; they are left out. */
const FILL_CUTOFF_MARGIN_MS = 10_000;

interface Args {
  readonly minutes: number;
  readonly seed: number;
  readonly json: boolean;
  readonly keep: boolean;
}

const USAGE = `usage: npm run chaos -- [--minutes N] [--seed S] [--json] [--keep]
  --minutes N  length of the chaos phase (default 1; decimals allowed)
  --seed S     seed of the fault dice and the kill schedule (default 1)
  --json       print only the JSON result on stdout
  --keep       keep the temp dir (configs, store, logs) even when the run is ok`;

class UsageError extends Error {}

function parse(argv: readonly string[]): Args | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        minutes: { type: 'string', default: '1' },
        seed: { type: 'string', default: '1' },
        json: { type: 'boolean', default: false },
        keep: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  if (values.help) return 'help';
  const minutes = Number(values.minutes);
  if (!/^\d+(\.\d+)?$/.test(values.minutes) || !(minutes > 0) || minutes > 24 * 60)
    throw new UsageError(`--minutes: expected a positive number of minutes, got ${values.minutes}`);
  if (!/^\d{1,10}$/.test(values.seed) || Number(values.seed) > 2 ** 32 - 1)
    throw new UsageError(`--seed: expected an integer in 0..${2 ** 32 - 1}, got ${values.seed}`);
  return { minutes, seed: Number(values.seed), json: values.json, keep: values.keep };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface RunnerLife {
  readonly n: number;
  readonly phase: 'chaos' | 'settle';
  readonly startedAtMs: number;
  readonly livedMs: number;
  /** `killed` = our SIGKILL; otherwise how it ended by itself. */
  readonly end: 'killed' | Exit;
}

class Chaos {
  readonly args: Args;
  readonly dir: string;
  readonly lives: RunnerLife[] = [];
  readonly #say: (line: string) => void;
  #sim: SimChild | undefined;
  #runner: Child | undefined;
  #n = 0;
  readonly #t0 = Date.now();

  constructor(args: Args) {
    this.args = args;
    this.dir = mkdtempSync(join(tmpdir(), 'capibot-chaos-'));
    this.#say = args.json ? () => undefined : (line) => process.stderr.write(`chaos: ${line}\n`);
  }

  get elapsedMs(): number {
    return Date.now() - this.#t0;
  }

  say(line: string): void {
    this.#say(line);
  }

  async startSim(): Promise<SimChild> {
    const { minutes, seed } = this.args;
    const data = join(this.dir, 'market.ndjson');
    // Market time needed: the chaos phase, the settle run and start-up slack, at SPEED.
    const wallS = minutes * 60 + SETTLE_S + 90;
    const rec = await writePingPongRecording(SOURCE_RECORDING, data, wallS * 1000 * SPEED);
    this.#sim = await startSim({
      data,
      faults: resolve(FAULTS),
      seed,
      speed: SPEED,
      logFile: join(this.dir, 'sim.log'),
    });
    this.say(`sim at ${this.#sim.url} (seed ${seed}, ${rec.polls} snapshots at ×${SPEED}, faults ${FAULTS})`);
    return this.#sim;
  }

  #startRunner(phase: RunnerLife['phase'], durationS?: number): Child {
    const n = ++this.#n;
    const sim = this.#sim;
    if (sim === undefined) throw new Error('the sim is not running');
    const config = join(this.dir, `run-${n}.yaml`);
    writeFileSync(
      config,
      chaosConfigYaml({
        baseUrl: sim.url,
        storePath: join(this.dir, 'store.sqlite'),
        logFile: join(this.dir, `run-${n}.log`),
        strategyFile: resolve(STRATEGY),
        settle: phase === 'settle',
      }),
    );
    this.#runner = startRunner({
      config,
      outFile: join(this.dir, `run-${n}.out`),
      ...(durationS !== undefined ? { durationS } : {}),
    });
    return this.#runner;
  }

  #record(phase: RunnerLife['phase'], startedAtMs: number, end: RunnerLife['end']): void {
    this.lives.push({ n: this.#n, phase, startedAtMs, livedMs: this.elapsedMs - startedAtMs, end });
    this.#runner = undefined;
  }

  /** Runs, kills and restarts the runner on the seeded schedule for `minutes`. */
  async chaosPhase(): Promise<void> {
    const start = this.elapsedMs;
    const schedule = killSchedule(this.args.seed, {
      durationMs: Math.round(this.args.minutes * 60_000),
      ...DEFAULT_KILL_GAPS,
    });
    this.say(
      `chaos phase: ${schedule.length} kill(s) at ${schedule.map((t) => (t / 1000).toFixed(1)).join(', ')} s`,
    );
    for (const killAt of schedule) {
      const deadline = start + killAt;
      while (this.elapsedMs < deadline) {
        const startedAt = this.elapsedMs;
        const child = this.#startRunner('chaos');
        const r = await exitWithin(child, deadline - this.elapsedMs);
        if (r === 'running') {
          await stop(child, 'SIGKILL');
          this.#record('chaos', startedAt, 'killed');
          this.say(`runner #${this.#n} killed after ${((this.elapsedMs - startedAt) / 1000).toFixed(1)} s`);
          break;
        }
        this.#record('chaos', startedAt, r);
        this.say(`runner #${this.#n} exited by itself (code ${r.code}, signal ${r.signal}); restarting`);
        await sleep(300);
      }
    }
  }

  /** The final start: recovery, reconciliation, cancels, a graceful stop. Returns its exit. */
  async settlePhase(): Promise<{ attempts: number; exit: Exit | 'hung' }> {
    let last: Exit | 'hung' = 'hung';
    for (let attempt = 1; attempt <= SETTLE_ATTEMPTS; attempt++) {
      const startedAt = this.elapsedMs;
      const child = this.#startRunner('settle', SETTLE_S);
      // Start-up, the settle time, the drain deadline and the last reconciliation, with slack.
      const r = await exitWithin(child, (SETTLE_S + 60) * 1000);
      if (r === 'running') {
        await stop(child, 'SIGKILL');
        this.#record('settle', startedAt, 'killed');
        last = 'hung';
        this.say(`settle run #${this.#n} did not stop in time: killed`);
        continue;
      }
      this.#record('settle', startedAt, r);
      last = r;
      if (r.code === 0) {
        this.say(
          `settle run #${this.#n} stopped normally after ${((this.elapsedMs - startedAt) / 1000).toFixed(1)} s`,
        );
        return { attempts: attempt, exit: r };
      }
      this.say(`settle run #${this.#n} failed (code ${r.code}, signal ${r.signal}); see run-${this.#n}.log`);
    }
    return { attempts: SETTLE_ATTEMPTS, exit: last };
  }

  async compare(): Promise<{
    comparison: Comparison;
    store: ReturnType<typeof readStore>;
    exchange: Awaited<ReturnType<typeof readExchange>>;
  }> {
    const sim = this.#sim;
    if (sim === undefined) throw new Error('the sim is not running');
    const endMarketTime = await readMarketTime(sim.url);
    const exchange = await readExchange(sim.url);
    const store = readStore(join(this.dir, 'store.sqlite'));
    const comparison = compare({
      prefix: CHAOS_PREFIX,
      storeOrders: store.orders,
      storeFills: store.fills,
      exchangeOrders: exchange.orders,
      exchangeFills: exchange.fills,
      exchangePlans: exchange.plans,
      fillCutoff: endMarketTime - FILL_CUTOFF_MARGIN_MS,
    });
    return { comparison, store, exchange };
  }

  /** Stops whatever still runs (also on errors and Ctrl-C). */
  async shutdown(): Promise<void> {
    const runner = this.#runner;
    if (runner !== undefined) await stop(runner, 'SIGKILL');
    const sim = this.#sim;
    this.#sim = undefined;
    if (sim !== undefined) await stop(sim, 'SIGTERM');
  }
}

async function main(): Promise<number> {
  let args: Args | 'help';
  try {
    args = parse(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`chaos: ${e instanceof Error ? e.message : String(e)}\n${USAGE}\n`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const chaos = new Chaos(args);
  const interrupted = (): void => {
    void chaos.shutdown().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  let ok = false;
  try {
    await chaos.startSim();
    await chaos.chaosPhase();
    const settle = await chaos.settlePhase();
    const { comparison: c, store, exchange } = await chaos.compare();
    await chaos.shutdown();

    const kills = chaos.lives.filter((l) => l.end === 'killed' && l.phase === 'chaos').length;
    const unexpected = chaos.lives.filter((l) => l.phase === 'chaos' && l.end !== 'killed');
    ok =
      c.duplicateOrders === 0 &&
      c.lostOrders === 0 &&
      c.orphanOrders === 0 &&
      c.fillMismatches === 0 &&
      settle.exit !== 'hung' &&
      settle.exit.code === 0;
    const keep = args.keep || !ok;
    const result = {
      intents: store.journal.total,
      ordersAtExchange: c.ordersAtExchange,
      plansAtExchange: {
        placed: c.plansAtExchange.placed,
        fired: c.plansAtExchange.fired,
        canceled: c.plansAtExchange.canceled,
      },
      fills: c.fillsAtExchange,
      faultsInjected: exchange.stats.faults,
      // Every SIGKILL of the chaos phase is followed by a restart (the next runner or the settle run).
      restarts: kills,
      duplicateOrders: c.duplicateOrders,
      lostOrders: c.lostOrders,
      orphanOrders: c.orphanOrders,
      fillMismatches: c.fillMismatches,
      ok,
      seed: args.seed,
      minutes: args.minutes,
      details: {
        ...c.details,
        plans: c.plansAtExchange,
        journal: store.journal,
        store: { orders: store.orders.length, fills: store.fills.length },
        sim: { requests: exchange.stats.requests, responses429: exchange.stats.responses429 },
        runners: {
          starts: chaos.lives.length,
          kills,
          exitedByThemselves: unexpected.map((l) => ({ n: l.n, afterMs: l.livedMs, ...(l.end as Exit) })),
          settle: { attempts: settle.attempts, exit: settle.exit },
        },
        wallSeconds: Math.round(chaos.elapsedMs / 100) / 10,
        ...(keep ? { dir: chaos.dir } : {}),
      },
    };
    process.stdout.write(`${JSON.stringify(result, null, args.json ? undefined : 2)}\n`);
    chaos.say(
      `${kills} SIGKILL restart(s), ${result.intents} intents, ${c.ordersAtExchange} orders, ${c.plansAtExchange.placed} plans (${c.plansAtExchange.fired} fired, ${c.plansAtExchange.canceled} canceled) and ${c.fillsAtExchange} fills at the exchange, ${exchange.stats.faults.total} faults injected, ${result.details.wallSeconds} s`,
    );
    chaos.say(
      `duplicates ${c.duplicateOrders}, lost ${c.lostOrders}, orphans ${c.orphanOrders}, fill mismatches ${c.fillMismatches}` +
        (settle.exit === 'hung' || settle.exit.code !== 0 ? ', settle run FAILED' : '') +
        ` → ${ok ? 'OK' : 'FAILED'}`,
    );
    if (keep) {
      writeFileSync(join(chaos.dir, 'exchange.json'), JSON.stringify(exchange, null, 1));
      chaos.say(`configs, store, logs and the exchange's orders and fills kept in ${chaos.dir}`);
    } else rmSync(chaos.dir, { recursive: true, force: true });
    return ok ? 0 : 1;
  } catch (e) {
    await chaos.shutdown();
    process.stderr.write(
      `chaos: run failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\nchaos: files kept in ${chaos.dir}\n`,
    );
    return 1;
  }
}

process.exitCode = await main();
