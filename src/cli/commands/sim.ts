// `capibot sim --data REC …`: serves the paper exchange (capi/v2 over HTTP) on loopback, fed by a
// recording. Prints exactly one line `sim listening on http://HOST:PORT` on stdout (scripts parse
// it); logs go to stderr through pino; SIGINT/SIGTERM stop it cleanly (exit 0).
// This file is the command's definition (its --help); ./sim-run.ts serves, imported only then
// (test/cli/compiled.test.ts).
import { InvalidArgumentError, Option } from 'commander';
import type { LevelWithSilent } from 'pino';
import { dec } from '../../core/decimal.ts';
import { CREDENTIAL_ENV } from '../../exchange/weex/credentials.ts';
import { SIM_TEST_CREDENTIALS } from '../../exchange/sim/test-credentials.ts';
import type { ClockMode } from '../../exchange/sim/market-clock.ts';
import type { FillModel } from '../../exchange/sim/matching.ts';
import type { RegisterCommand } from '../command.ts';

export interface SimFlags {
  readonly data: string;
  readonly port: number;
  readonly host: string;
  readonly clock: ClockMode;
  readonly speed: number;
  readonly faults?: string;
  readonly seed?: number;
  readonly fillModel: FillModel;
  readonly slippageBps: string;
  readonly liquidity?: string;
  readonly acceptDelayMs: number;
  readonly cancelDelayMs: number;
  readonly ipWeight: number;
  readonly uidWeight: number;
  readonly orderRate: number;
  readonly idsAsStrings?: boolean;
  readonly apiKey?: string;
  readonly apiSecret?: string;
  readonly apiPassphrase?: string;
  readonly logLevel: LevelWithSilent;
}

function intArg(min: number, max: number) {
  return (value: string): number => {
    if (!/^-?\d{1,16}$/.test(value)) throw new InvalidArgumentError('expected an integer');
    const n = Number(value);
    if (n < min || n > max) throw new InvalidArgumentError(`expected an integer in ${min}..${max}`);
    return n;
  };
}

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

function decimalArg(value: string): string {
  try {
    if (dec(value).lt(0)) throw new InvalidArgumentError('expected a non-negative decimal');
  } catch (e) {
    if (e instanceof InvalidArgumentError) throw e;
    throw new InvalidArgumentError('expected a decimal number');
  }
  return value;
}

export const registerSim: RegisterCommand = (program, ctx) => {
  program
    .command('sim')
    .description(
      'Serve the paper exchange: a capi/v2 simulator (matching, fees, hedge positions, weights, signatures, faults) fed by a recording',
    )
    .requiredOption('--data <file>', 'recording to serve (.ndjson, .ndjson.gz or .parquet)')
    .option('--port <n>', 'TCP port; 0 picks a free one (printed)', intArg(0, 65535), 0)
    .option('--host <addr>', 'address to listen on (keep it loopback)', '127.0.0.1')
    .addOption(
      new Option(
        '--clock <mode>',
        'lockstep: each tickers request advances one snapshot; realtime: recorded time × speed',
      )
        .choices(['lockstep', 'realtime'])
        .default('lockstep'),
    )
    .option('--speed <x>', 'realtime playback speed', positiveNumber, 1)
    .option('--faults <file>', 'fault-injection profile (YAML or JSON)')
    .option(
      '--seed <n>',
      'seed of order/trade ids and fault dice (default: the profile seed, else 1)',
      intArg(0, 2 ** 32 - 1),
    )
    .addOption(
      new Option(
        '--fill-model <model>',
        'resting orders fill when the market trades through (one tick) or touches the price',
      )
        .choices(['through', 'touch'])
        .default('through'),
    )
    .option(
      '--slippage-bps <bps>',
      'market-order slippage against the taker, in basis points',
      decimalArg,
      '0',
    )
    .option(
      '--liquidity <qty>',
      'quantity offered per symbol, side and snapshot (default unlimited)',
      decimalArg,
    )
    .option(
      '--accept-delay-ms <n>',
      'time a new order stays pending before matching',
      intArg(0, 3_600_000),
      0,
    )
    .option(
      '--cancel-delay-ms <n>',
      'time a cancel stays canceling (fills may still happen)',
      intArg(0, 3_600_000),
      0,
    )
    .option('--ip-weight <n>', 'IP weight per rolling 10 s', intArg(1, 1_000_000), 1000)
    .option('--uid-weight <n>', 'UID weight per rolling 10 s', intArg(1, 1_000_000), 1000)
    .option('--order-rate <n>', 'placeOrder/cancel_order requests per second', intArg(1, 1_000_000), 10)
    .option('--ids-as-strings', 'send fills tradeId/orderId as strings instead of JSON numbers')
    .option('--api-key <key>', `API key (default $${CREDENTIAL_ENV.apiKey})`)
    .option('--api-secret <secret>', `API secret (default $${CREDENTIAL_ENV.secret})`)
    .option('--api-passphrase <passphrase>', `API passphrase (default $${CREDENTIAL_ENV.passphrase})`)
    .addOption(
      new Option('--log-level <level>', 'log level on stderr')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info'),
    )
    .addHelpText(
      'after',
      `
Without credentials (flags or environment) the simulator accepts the fixed test credentials
  key ${SIM_TEST_CREDENTIALS.apiKey}  secret ${SIM_TEST_CREDENTIALS.secret}  passphrase ${SIM_TEST_CREDENTIALS.passphrase}
Inspection (no auth, loopback): GET /sim/v1/orders, /sim/v1/fills, /sim/v1/positions, /sim/v1/stats`,
    )
    .action(async (flags: SimFlags) => {
      const { runSim } = await import('./sim-run.ts');
      await runSim(flags, ctx);
    });
};
