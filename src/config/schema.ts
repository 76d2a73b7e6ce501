// The one root schema of a capibot config file (YAML). This is the contract every component reads:
// each field says what it does and its default, and the JSON Schema for editors is generated from it
// (src/config/json-schema.ts). Rules:
// - every object is strict: an unknown key is an error (with a "did you mean" for near misses);
// - money and money-like ratios are exact decimal strings in the parsed config (YAML numbers are
//   accepted and converted exactly); counts and durations are integers (milliseconds end in `Ms`);
// - relative paths are kept as written and resolve against the working directory of the process;
// - credentials never appear in the file: the file only names the environment variables to read.
// Cross-field rules (unique strategy ids, paper-mode safety, drawdown thresholds, ...) live in
// src/config/cross-checks.ts and run after this schema.
import { z } from 'zod';
import { VENUE_LIMITS } from '../core/endpoints.ts';
import {
  bool,
  nonNegativeDecimal,
  nonNegativeInt,
  oneOf,
  optionalPositiveDecimal,
  envVariableName,
  pattern,
  port,
  positiveDecimal,
  positiveInt,
  ratio,
  text,
  textWithDefault,
  url,
} from './fields.ts';
import { ConsoleSchema, NotifySchema } from './schema-console.ts';
import { DEFAULT_BASE_URL } from '../exchange/weex/defaults.ts';

/** Environment variables holding the credentials unless the config names others. */
export const DEFAULT_CREDENTIAL_ENV = {
  apiKey: 'CAPIBOT_API_KEY',
  secret: 'CAPIBOT_API_SECRET',
  passphrase: 'CAPIBOT_API_PASSPHRASE',
} as const;

/** `[A-Za-z0-9]`, 1–8 characters: the first part of every client_oid (`<prefix>-<strategy>-<seq>`). */
export const CLIENT_OID_PREFIX_PATTERN = /^[A-Za-z0-9]{1,8}$/;

/**
 * A strategy id: `[A-Za-z0-9_]`, 1–16 characters. It is the middle part of client_oids
 * (`<prefix>-<id>-<seq>`, at most 40 characters in total, `-` being the separator), a metrics label
 * and a log field, so it is kept short and free of `-`.
 */
export const STRATEGY_ID_PATTERN = /^[A-Za-z0-9_]{1,16}$/;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function envName(description: string, def: string) {
  return envVariableName(ENV_NAME, 'an environment variable name ([A-Za-z_][A-Za-z0-9_]*)', description, def);
}

const ExchangeSchema = z
  .strictObject({
    baseUrl: url(
      'Base URL of the capi/v2 REST API. Live mode talks to it; paper mode with `paper.venue: http` talks to a `capibot sim` at this URL.',
      DEFAULT_BASE_URL,
    ),
    locale: textWithDefault(
      'Value of the `locale` header sent with every request; the exchange answers error messages in this language.',
      'en-US',
    ),
    timeoutMs: positiveInt(
      'Time allowed for one request, from sending to the complete reply. A placement that times out becomes `unknown` and is settled by reconciliation, never resent.',
      10_000,
      600_000,
    ),
    connectTimeoutMs: positiveInt(
      'Time allowed to open a connection (nothing was sent yet: safe to retry).',
      5_000,
      600_000,
    ),
    readRetries: nonNegativeInt(
      'How many times a read (tickers, fills, history) or a cancel is retried after a transport failure. Placements are never retried.',
      3,
      20,
    ),
    retryBackoffMs: positiveInt(
      'First back-off delay before a retry; doubles with each attempt.',
      250,
      60_000,
    ),
  })
  .describe('The exchange endpoint and request behaviour.');

const CredentialsSchema = z
  .strictObject({
    apiKeyEnv: envName(
      'Name of the environment variable holding the API key.',
      DEFAULT_CREDENTIAL_ENV.apiKey,
    ),
    secretEnv: envName(
      'Name of the environment variable holding the API secret.',
      DEFAULT_CREDENTIAL_ENV.secret,
    ),
    passphraseEnv: envName(
      'Name of the environment variable holding the API passphrase.',
      DEFAULT_CREDENTIAL_ENV.passphrase,
    ),
  })
  .describe(
    'Where the credentials come from. Credentials are read ONLY from the environment; this section names the variables. A key, secret or passphrase written in the file is refused.',
  );

const StoreSchema = z
  .strictObject({
    path: textWithDefault(
      'SQLite file holding orders, fills and the intent journal (created if missing). One runner per file.',
      'var/capibot.sqlite',
    ),
  })
  .describe('The write-ahead store.');

const StrategySchema = z
  .strictObject({
    id: z
      .string({ error: 'expected a strategy id of 1-16 characters [A-Za-z0-9_]' })
      .regex(STRATEGY_ID_PATTERN, { error: 'expected a strategy id of 1-16 characters [A-Za-z0-9_]' })
      .describe(
        'Unique id of this strategy instance: 1-16 characters [A-Za-z0-9_]. Part of every client_oid it places, of metrics labels and log lines. Required.',
      ),
    file: text('Path of the strategy plugin (.ts), e.g. `strategies/ema-cross.ts`. Required.'),
    params: z
      .record(z.string(), z.unknown(), { error: 'expected a mapping of parameter names to values' })
      .default({})
      .describe("Parameters passed to the strategy, validated by the strategy's own schema. Default: {}."),
    enabled: bool('Whether this strategy runs. A disabled strategy is validated but not started.', true),
  })
  .describe('One strategy instance.');

const RiskSchema = z
  .strictObject({
    maxOrderNotional: positiveDecimal(
      'Largest notional (price × size, in quote currency) of a single order; larger placements are refused.',
      '1000',
    ),
    maxPositionNotional: positiveDecimal(
      'Largest notional of the position per symbol (both legs together) after an order would fill; opening orders beyond it are refused.',
      '5000',
    ),
    maxOpenOrders: positiveInt(
      'Largest number of orders open at once (all strategies, all symbols).',
      50,
      100_000,
    ),
    maxOrdersPerMinute: positiveInt(
      'Largest number of placements per rolling minute (all strategies).',
      120,
      100_000,
    ),
    priceBandBps: positiveDecimal(
      'Limit prices must lie within this distance of the last price, in basis points (500 = 5%).',
      '500',
      '10000',
    ),
    drawdownReducePct: positiveDecimal(
      'Drawdown from peak equity, in percent, at which trading moves to REDUCING (only position-reducing intents pass).',
      '5',
      '100',
    ),
    drawdownHaltPct: positiveDecimal(
      'Drawdown from peak equity, in percent, at which trading moves to HALTED (only cancels pass). At least drawdownReducePct.',
      '10',
      '100',
    ),
  })
  .describe('The pre-trade risk gate. Every refusal is an event with its reason.');

// Several processes on one account and IP draw from one budget held in Redis (docs/operations.md,
// "Several bots on one account"). Absent: this process has the whole budget, and needs no Redis.
const SharedBudgetSchema = z
  .strictObject({
    url: z
      .string({ error: 'expected a redis:// or rediss:// URL' })
      .refine((u) => /^rediss?:\/\/\S+$/.test(u) && URL.canParse(u), {
        error: 'expected a redis:// or rediss:// URL',
      })
      .describe(
        'Redis holding the shared budget, e.g. redis://127.0.0.1:6379/0. Put a password in an environment variable: url: ${CAPIBOT_REDIS_URL}.',
      ),
    account: z
      .string({ error: 'expected an account name' })
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: 'expected 1–64 characters of A-Z a-z 0-9 _ . -' })
      .describe('Name of the budget: every process with the same name (same account and IP) shares it.'),
    timeoutMs: positiveInt(
      'A Redis call slower than this fails, and the process falls back to its share of the budget.',
      1_000,
    ),
    heartbeatMs: positiveInt(
      'How often a process tells Redis it is alive (and retries Redis in fallback).',
      500,
    ),
    staleAfterMs: positiveInt(
      'A process silent this long is presumed in fallback: its share is held back from the others. Above heartbeatMs + timeoutMs.',
      3_000,
    ),
    memberTtlMs: positiveInt(
      'A process silent this long is forgotten (its share released); a process in fallback stops sending before then.',
      120_000,
    ),
    cancelReserve: ratio(
      'Fraction of each pool that other requests leave to cancels while a cancel of any process waits for room, so cancels keep their priority across processes. While no cancel waits, the whole pool is used.',
      0.1,
      { gte: 0, lte: 0.5 },
    ),
  })
  .refine((s) => s.staleAfterMs > s.heartbeatMs + s.timeoutMs, {
    error: 'staleAfterMs must be greater than heartbeatMs + timeoutMs',
    path: ['staleAfterMs'],
  })
  .describe('Share the budget with the other processes of this account through Redis.');

const BudgetSchema = z
  .strictObject({
    ipWeightPerWindow: positiveInt(
      'Weight the exchange allows per IP per window.',
      VENUE_LIMITS.ipWeightPerWindow,
    ),
    uidWeightPerWindow: positiveInt(
      'Weight the exchange allows per account (UID) per window.',
      VENUE_LIMITS.uidWeightPerWindow,
    ),
    windowMs: positiveInt('Length of the rolling weight window.', VENUE_LIMITS.windowMs),
    safetyMargin: ratio(
      'Fraction of each weight budget capibot allows itself to use (0.9 = stay 10% under the limit).',
      0.9,
      { gt: 0, lte: 1 },
    ),
    orderRequestsPerSecond: positiveInt(
      'Cap on placeOrder + cancel_order requests per second.',
      VENUE_LIMITS.orderRequestsPerSecond,
    ),
    shared: SharedBudgetSchema.optional(),
  })
  .superRefine((b, ctx) => {
    const s = b.shared;
    if (s === undefined) return;
    if (s.memberTtlMs < 2 * (b.windowMs + s.staleAfterMs)) {
      ctx.addIssue({
        code: 'custom',
        path: ['shared', 'memberTtlMs'],
        message: `must be at least 2 × (windowMs + staleAfterMs) = ${2 * (b.windowMs + s.staleAfterMs)}: a process in fallback must be able to spend its share before Redis forgets it`,
      });
    }
  })
  .describe('The request weight budget (token buckets). Requests never exceed it.');

const ExecutorSchema = z
  .strictObject({
    concurrency: positiveInt('Requests in flight at once.', 4, 64),
    coalesceMs: nonNegativeInt(
      'How long placements wait to be batched with others for the same symbol. 0 = batch what arrives within one ticker update.',
      0,
      60_000,
    ),
    supersede: bool(
      'When intents arrive faster than the budget allows, a queued placement may be replaced by a newer one from the same strategy for the same symbol.',
      true,
    ),
  })
  .describe('The request executor (queue, batching, priorities).');

const PollingSchema = z
  .strictObject({
    tickersMs: positiveInt('Interval between polls of the tickers endpoint (weight 40 per poll).', 1_000),
    fillsMs: positiveInt('Interval between polls of fills while orders are in flight.', 2_000),
    historyMs: positiveInt('Interval between polls of order history while orders are in flight.', 5_000),
    planHistoryMs: positiveInt('Interval between polls of plan-order history.', 30_000),
    idleFactor: ratio(
      'Multiplier applied to the fills/history intervals when no order is in flight or unknown.',
      3,
      { gte: 1, lte: 100 },
    ),
    fillsOverlapMs: nonNegativeInt(
      'How far back before the newest seen fill each fills poll starts again (late fills are not missed; duplicates are removed by trade id).',
      30_000,
    ),
    unknownGraceMs: positiveInt(
      'How long an order whose request outcome is unknown may stay without any trace in fills or history before it is declared lost (rejected), loudly.',
      60_000,
    ),
    staleAfterMs: positiveInt(
      'Tickers older than this make the runner not ready (/ready answers 503) and are reported as stale.',
      15_000,
    ),
  })
  .describe('Polling intervals of the tickers, fills and history pollers.');

const PaperSchema = z
  .strictObject({
    venue: oneOf(
      ['embedded', 'http'],
      'Where paper orders go: `embedded` = the in-process simulator; `http` = a running `capibot sim` at exchange.baseUrl (credentials from the environment). The real exchange is refused in paper mode.',
      'embedded',
    ),
    source: oneOf(
      ['recording', 'live'],
      'Where paper tickers come from (embedded venue): `live` = the real tickers endpoint at exchange.baseUrl (public, no credentials); `recording` = the file in paper.data.',
      'live',
    ),
    data: text(
      'Recording (.ndjson, .ndjson.gz or .parquet) replayed when paper.source is `recording`.',
    ).optional(),
    clock: oneOf(
      ['realtime', 'lockstep'],
      'How a recording is replayed: `realtime` = recorded time mapped onto the wall clock × speed; `lockstep` = each tickers poll advances one snapshot.',
      'realtime',
    ),
    speed: ratio('Replay speed for `clock: realtime` (2 = twice as fast).', 1, { gt: 0, lte: 10_000 }),
    fillModel: oneOf(
      ['through', 'touch'],
      'When a resting limit order fills: `through` = the opposite best price must cross the limit by at least one tick (conservative); `touch` = reaching it is enough.',
      'through',
    ),
    slippageBps: nonNegativeDecimal(
      'Slippage of market orders beyond the best opposite price, in basis points.',
      '1',
      '10000',
    ),
    makerFee: nonNegativeDecimal('Maker fee rate (0.0002 = 0.02%).', '0.0002', '1'),
    takerFee: nonNegativeDecimal('Taker fee rate (0.0008 = 0.08%).', '0.0008', '1'),
    liquidityCap: optionalPositiveDecimal(
      'Largest size (base coin) that can fill per symbol per ticker snapshot; larger orders fill partially over several snapshots. Absent = unlimited.',
    ),
    startingBalance: positiveDecimal('Starting account balance of the simulated account, in USDT.', '10000'),
  })
  .describe('The paper exchange (simulator) used by paper mode and by backtests.');

const BacktestSchema = z
  .strictObject({
    data: text(
      'Recording replayed by `capibot backtest` (overridden by --data). Falls back to paper.data.',
    ).optional(),
    equitySampleMs: positiveInt(
      'Interval of the equity curve samples in the report (virtual time). A run that would take more than 10 000 samples keeps every other one and doubles the interval, as often as needed.',
      60_000,
    ),
  })
  .describe(
    'Backtests: the same engine replayed in virtual time over a recording, against the paper exchange settings.',
  );

const OrdersSchema = z
  .strictObject({
    clientOidPrefix: pattern(
      CLIENT_OID_PREFIX_PATTERN,
      '1-8 characters [A-Za-z0-9]',
      "Prefix of every client_oid capibot generates (`<prefix>-<strategy>-<seq>`). Orders on the exchange carrying it are capibot's and are adopted by reconciliation; others are reported, never touched.",
      'cb',
    ),
    cancelOnStart: bool(
      'Cancel every open capibot order (this prefix) after the start-up reconciliation.',
      false,
    ),
    cancelOnExit: bool(
      'Cancel every open capibot order whenever the runner stops (normal end or signal).',
      false,
    ),
    keepProtectivePlans: bool(
      "Leave protective plan orders (a strategy's stopLoss / takeProfit of an open position) resting at the exchange when the runner cancels everything: on exit, on a shutdown signal and on the kill switch. They close the positions they guard even while the bot is down. false: cancel them too.",
      true,
    ),
  })
  .describe('Order identity and lifecycle options.');

const MetricsSchema = z
  .strictObject({
    enabled: bool(
      'Serve /metrics (Prometheus), /health and /ready over HTTP while running (not in backtests).',
      true,
    ),
    host: textWithDefault(
      'Address to bind. Keep loopback unless a scraper on another host needs it.',
      '127.0.0.1',
    ),
    port: port('Port to bind (0 = any free port, logged at start).', 9464),
  })
  .describe('The metrics and health endpoint.');

const LogSchema = z
  .strictObject({
    level: oneOf(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      'Lowest level written.',
      'info',
    ),
    pretty: z
      .union([z.literal('auto'), z.boolean()], { error: 'expected auto, true or false' })
      .default('auto')
      .describe(
        'Human-readable lines instead of JSON: `auto` = pretty only when stderr is a terminal. Default: auto.',
      ),
    file: text(
      'Append logs to this file instead of stderr (reopened on SIGHUP for log rotation). Absent = stderr.',
    ).optional(),
  })
  .describe('Logging (pino). Credentials are redacted from every line.');

const ShutdownSchema = z
  .strictObject({
    drainDeadlineMs: positiveInt(
      'On SIGTERM/SIGINT: how long in-flight and queued cancels may take before the runner exits anyway (a second signal exits at once).',
      10_000,
      600_000,
    ),
    cancelOpenOrders: bool(
      'On SIGTERM/SIGINT: cancel every open capibot order before exiting (also done when orders.cancelOnExit is true).',
      false,
    ),
  })
  .describe('Graceful shutdown.');

/** The root schema. Sections are optional in the file; their fields take the documented defaults. */
export const ConfigSchema = z
  .strictObject({
    mode: oneOf(
      ['paper', 'live'],
      '`paper` = the simulated exchange (no real money); `live` = the real exchange (also needs the --live flag and credentials in the environment).',
      'paper',
    ),
    exchange: ExchangeSchema.prefault({}),
    credentials: CredentialsSchema.prefault({}),
    store: StoreSchema.prefault({}),
    strategies: z
      .array(StrategySchema, { error: 'expected a list of strategies' })
      .min(1, { error: 'expected at least one strategy' })
      .describe('The strategy instances to run (at least one).'),
    risk: RiskSchema.prefault({}),
    budget: BudgetSchema.prefault({}),
    executor: ExecutorSchema.prefault({}),
    polling: PollingSchema.prefault({}),
    paper: PaperSchema.prefault({}),
    backtest: BacktestSchema.prefault({}),
    orders: OrdersSchema.prefault({}),
    metrics: MetricsSchema.prefault({}),
    log: LogSchema.prefault({}),
    shutdown: ShutdownSchema.prefault({}),
    console: ConsoleSchema.prefault({}),
    notify: NotifySchema.prefault({}),
  })
  .describe(
    'capibot configuration (YAML). `${VAR}` and `${VAR:-default}` are replaced from the environment.',
  );

/** Makes every property and element readonly, recursively (the parsed config is deep-frozen). */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer E)[]
    ? readonly DeepReadonly<E>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

/** The parsed, validated, deep-frozen configuration. */
export type Config = DeepReadonly<z.output<typeof ConfigSchema>>;
/** What a config file may contain (before defaults). */
export type ConfigInput = z.input<typeof ConfigSchema>;

export type Mode = Config['mode'];
export type ExchangeConfig = Config['exchange'];
export type CredentialsConfig = Config['credentials'];
export type StoreConfig = Config['store'];
export type StrategyConfig = Config['strategies'][number];
export type RiskConfig = Config['risk'];
export type BudgetConfig = Config['budget'];
export type ExecutorConfig = Config['executor'];
export type PollingConfig = Config['polling'];
export type PaperConfig = Config['paper'];
export type BacktestConfig = Config['backtest'];
export type OrdersConfig = Config['orders'];
export type MetricsConfig = Config['metrics'];
export type LogConfig = Config['log'];
export type ShutdownConfig = Config['shutdown'];
export type ConsoleConfig = Config['console'];
export type NotifyConfig = Config['notify'];

/** The top-level keys, in file order of the example config. */
export const CONFIG_SECTIONS = Object.keys(ConfigSchema.shape) as readonly (keyof Config)[];
