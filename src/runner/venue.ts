// The venue a run trades on, from the config: where orders go (the exchange port), where tickers come
// from, and what time it is there (the engine's clock). Four shapes, one interface:
//
//   live                       WeexClient → exchange.baseUrl (credentials), wall clock
//   paper, venue http          WeexClient → a `capibot sim` at exchange.baseUrl, clock from its tickers
//   paper, embedded + live     in-process SimPort fed by the real public tickers, wall clock
//   paper, embedded + recording in-process SimPort fed by paper.data (realtime × speed, or lockstep:
//                              one snapshot per tickers poll)
//
// Every tickers request of a running engine goes through the weight budget (`read`). The few requests
// before the engine exists (`prepare`: first tickers, contracts) go straight to the venue.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import { dec } from '../core/decimal.ts';
import { BadInputError, ConfigError, isCapibotError } from '../core/errors.ts';
import type { SymbolId } from '../core/ids.ts';
import type { ContractSpec, Ticker } from '../core/market.ts';
import type { Config } from '../config/schema.ts';
import type { Credentials } from '../exchange/weex/signer.ts';
import type { ExchangePort } from '../exchange/port.ts';
import { ContractTable, DEFAULT_CONTRACTS, type ContractOverride } from '../exchange/sim/contracts.ts';
import { SIM_TEST_CREDENTIALS } from '../exchange/sim/test-credentials.ts';
import { pollSourceFrom, type PollSource } from '../exchange/sim/market-clock.ts';
import { SimPort } from '../exchange/sim/sim-port.ts';
import { WeexClient } from '../exchange/weex/client.ts';
import type { ResponseHook } from '../exchange/weex/transport.ts';
import { openRecording } from '../market/recording/reader.ts';
import type { ReadThrough } from '../reconcile/fetch.ts';
import { OffsetClock, ReplayClock, TickerTimeClock, wallClock } from './venue-clock.ts';
import { simRetentionMs } from './options.ts';

export type VenueKind = 'live' | 'paper-http' | 'paper-embedded-live' | 'paper-embedded-recording';

export interface Venue {
  readonly kind: VenueKind;
  /** Where orders go and reconciliation reads from. */
  readonly port: ExchangePort;
  /** The venue's time: the engine's and the pollers' clock. */
  readonly clock: Clock;
  /** False for the in-process simulator: its orders do not survive the process. */
  readonly persistent: boolean;
  /** Runs before the engine exists (no budget): first tickers (clock, simulator books). */
  prepare(): Promise<void>;
  /** Contract specs of the venue. */
  specs(): Promise<ReadonlyMap<SymbolId, ContractSpec>>;
  /** One tickers poll through `read`; also keeps the venue's clock and the simulator's market. */
  fetchTickers(read: ReadThrough): Promise<readonly Ticker[]>;
  /** Resolves when the market data ends (a replayed recording); never for live sources. */
  readonly ended: Promise<void>;
  close(): Promise<void>;
}

export interface VenueDeps {
  readonly config: Config;
  /** Credentials from the environment (live: required; paper http: else the sim's test credentials). */
  readonly credentials: Credentials | undefined;
  readonly log: Logger;
  /** Seed of the embedded simulator's ids (default: the wall clock, so ids differ between runs). */
  readonly seed?: number;
  /** Called once per HTTP attempt (metrics). */
  readonly onResponse?: ResponseHook;
}

const never = new Promise<void>(() => undefined);

/**
 * A capi/v2 client. `clock` is what the client takes for "now": its own request checks (history
 * `createDate` within 90 days) compare with it, and it signs with it plus the measured server offset.
 * Against a sim replaying old data that must be the venue's clock; the offset to the sim's wall-clock
 * server time is then re-measured often.
 */
function client(d: VenueDeps, credentials: Credentials | undefined, clock: Clock = wallClock): WeexClient {
  const { config, log } = d;
  const x = config.exchange;
  return new WeexClient({
    ...(clock !== wallClock ? { serverTimeMaxAgeMs: 10_000 } : {}),
    ...(d.onResponse !== undefined ? { onResponse: d.onResponse } : {}),
    baseUrl: x.baseUrl,
    ...(credentials !== undefined ? { credentials } : {}),
    locale: x.locale,
    timeouts: {
      connectMs: x.connectTimeoutMs,
      headersMs: x.timeoutMs,
      bodyMs: x.timeoutMs,
      totalMs: x.timeoutMs,
    },
    // Retries happen in the executor's lanes, where they are counted against the weight budget.
    retry: { maxAttempts: 1, baseDelayMs: x.retryBackoffMs },
    clock,
    logger: log,
  });
}

async function specsOf(port: ExchangePort): Promise<ReadonlyMap<SymbolId, ContractSpec>> {
  return new Map((await port.contracts()).map((c) => [c.symbol, c]));
}

export async function openVenue(d: VenueDeps): Promise<Venue> {
  const { config } = d;
  if (config.mode === 'live') {
    const c = client(d, d.credentials);
    return clientVenue('live', c, new OffsetClock(wallClock, () => c.serverOffsetMs));
  }
  if (config.paper.venue === 'http') {
    if (d.credentials === undefined) {
      d.log.warn('paper.venue http: no credentials in the environment; using the simulator test credentials');
    }
    const clock = new TickerTimeClock(wallClock);
    return clientVenue('paper-http', client(d, d.credentials ?? SIM_TEST_CREDENTIALS, clock), clock);
  }
  if (config.paper.source === 'live') return embeddedLive(d);
  return embeddedRecording(d);
}

/**
 * Start-up reads (first tickers, contracts) happen before the engine and its retrying lanes exist.
 * They are idempotent, so a lost reply, a 5xx or a 429 is retried here with a growing pause instead of
 * failing the whole start (the chaos run saw 15–30 % of starts end that way under a hard fault profile).
 */
async function startupRead<T>(fn: () => Promise<T>, attempts = 6, firstDelayMs = 250): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (e) {
      const retryable = isCapibotError(e) && e.retry !== 'never';
      if (!retryable || i >= attempts) throw e;
      await sleep(firstDelayMs * 2 ** (i - 1));
    }
  }
}

function clientVenue(kind: VenueKind, c: WeexClient, clock: Clock): Venue {
  const observe = (t: readonly Ticker[]): readonly Ticker[] => {
    if (clock instanceof TickerTimeClock) clock.observe(t);
    return t;
  };
  return {
    kind,
    port: c,
    clock,
    persistent: true,
    prepare: async () => {
      observe(await startupRead(() => c.tickers()));
    },
    specs: () => startupRead(() => specsOf(c)),
    fetchTickers: async (read) => observe(await read('tickers', () => c.tickers())),
    ended: never,
    close: () => c.close(),
  };
}

function simPort(config: Config, clock: Clock, seed: number): SimPort {
  const p = config.paper;
  const fees: ContractOverride = { makerFeeRate: p.makerFee, takerFeeRate: p.takerFee };
  const overrides = Object.fromEntries(Object.keys(DEFAULT_CONTRACTS).map((s) => [s, fees]));
  return new SimPort({
    clock,
    seed,
    contracts: new ContractTable(overrides, fees),
    fillModel: p.fillModel,
    slippageBps: dec(p.slippageBps),
    ...(p.liquidityCap !== undefined ? { liquidityPerSnapshot: dec(p.liquidityCap) } : {}),
    retentionMs: simRetentionMs(config.polling),
  });
}

/** The in-process simulator, its market moved by the real exchange's public tickers. */
function embeddedLive(d: VenueDeps): Venue {
  const clock = wallClock;
  const sim = simPort(d.config, clock, d.seed ?? Date.now() % 2 ** 31);
  const source = client(d, undefined);
  const feed = (tickers: readonly Ticker[]): readonly Ticker[] => {
    sim.applyTickers(
      clock.now(),
      tickers.map((t) => t.wire),
    );
    return tickers;
  };
  return {
    kind: 'paper-embedded-live',
    port: sim,
    clock,
    persistent: false,
    prepare: async () => {
      feed(await source.tickers());
    },
    specs: () => specsOf(sim),
    fetchTickers: async (read) => feed(await read('tickers', () => source.tickers())),
    ended: never,
    close: () => source.close(),
  };
}

/** The in-process simulator replaying paper.data: in real time × speed, or one snapshot per poll. */
async function embeddedRecording(d: VenueDeps): Promise<Venue> {
  const p = d.config.paper;
  if (p.data === undefined) throw new ConfigError('missing: paper.source is recording', 'paper.data');
  const rec = await openRecording(p.data);
  const source: PollSource = pollSourceFrom(rec.polls);
  const first = await source.next();
  if (first === undefined) {
    await rec.close();
    throw new BadInputError('the recording holds no polls', p.data);
  }
  const lockstep = p.clock === 'lockstep';
  // Lockstep moves the market one snapshot per poll, but time itself keeps flowing (from the first
  // snapshot, at wall rate): weight windows, grace periods and strategy timers need it to.
  const clock: Clock = new ReplayClock(wallClock, first.t, lockstep ? 1 : p.speed);
  const sim = simPort(d.config, clock, d.seed ?? Date.now() % 2 ** 31);
  sim.applyPoll(first);
  let pending = lockstep ? undefined : await source.next();
  let done = false;
  let signalEnd: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => {
    signalEnd = resolve;
  });
  const finish = (): void => {
    if (done) return;
    done = true;
    d.log.info({ data: p.data }, 'the recording has ended');
    signalEnd();
  };
  /** Realtime: every snapshot that fell due; lockstep: the next snapshot. */
  const advance = async (): Promise<void> => {
    if (done) return;
    if (lockstep) {
      const next = await source.next();
      if (next === undefined) return finish();
      sim.applyPoll(next);
      return;
    }
    const now = clock.now();
    while (pending !== undefined && pending.t <= now) {
      sim.applyPoll(pending);
      pending = await source.next();
    }
    if (pending === undefined) finish();
  };
  let servedFirst = false;
  return {
    kind: 'paper-embedded-recording',
    port: sim,
    clock,
    persistent: false,
    prepare: () => Promise.resolve(),
    specs: () => specsOf(sim),
    fetchTickers: (read) =>
      read('tickers', async () => {
        // Lockstep serves the first snapshot first, then one more per poll.
        if (!lockstep || servedFirst) await advance();
        servedFirst = true;
        return sim.tickers();
      }),
    ended,
    close: async () => {
      await source.close();
      await rec.close();
    },
  };
}
