// `capibot sim`, run: load the recording and the fault profile, serve the simulator until SIGINT or
// SIGTERM. The options: ./sim.ts.
import { ConfigError, BadInputError } from '../../core/errors.ts';
import { dec } from '../../core/decimal.ts';
import { credentialsFromEnv, CREDENTIAL_ENV } from '../../exchange/weex/credentials.ts';
import type { Credentials } from '../../exchange/weex/signer.ts';
import { createSimServer } from '../../exchange/sim/create-sim.ts';
import { SIM_TEST_CREDENTIALS } from '../../exchange/sim/test-credentials.ts';
import { loadFaultProfile, NO_FAULTS } from '../../exchange/sim/faults.ts';
import { pollSourceFrom, type PollSource } from '../../exchange/sim/market-clock.ts';
import type { SimServer } from '../../exchange/sim/server.ts';
import { openRecording } from '../../market/recording/reader.ts';
import { createRootLogger } from '../../obs/logger.ts';
import { untilStopped } from '../../runner/signals.ts';
import type { CliContext } from '../command.ts';
import type { SimFlags } from './sim.ts';

/** Flags override the environment; none at all → the documented test credentials. */
function resolveCredentials(flags: SimFlags): { creds: Credentials; fromDefaults: boolean } {
  const env = {
    [CREDENTIAL_ENV.apiKey]: flags.apiKey ?? process.env[CREDENTIAL_ENV.apiKey],
    [CREDENTIAL_ENV.secret]: flags.apiSecret ?? process.env[CREDENTIAL_ENV.secret],
    [CREDENTIAL_ENV.passphrase]: flags.apiPassphrase ?? process.env[CREDENTIAL_ENV.passphrase],
  };
  const creds = credentialsFromEnv(env);
  return creds ? { creds, fromDefaults: false } : { creds: SIM_TEST_CREDENTIALS, fromDefaults: true };
}

async function openPolls(path: string): Promise<PollSource> {
  const rec = await openRecording(path);
  const inner = pollSourceFrom(rec.polls);
  return {
    next: () => inner.next(),
    close: async () => {
      await inner.close();
      await rec.close();
    },
  };
}

export async function runSim(flags: SimFlags, ctx: CliContext): Promise<void> {
  if (flags.clock !== 'realtime' && flags.speed !== 1)
    throw new BadInputError('--speed applies to --clock realtime only', '--speed');
  const { creds, fromDefaults } = resolveCredentials(flags);
  const root = createRootLogger({
    level: flags.logLevel,
    secrets: fromDefaults ? [] : [creds.apiKey, creds.secret, creds.passphrase],
    base: { app: 'capibot-sim' },
  });
  const log = root.logger;
  if (fromDefaults) {
    ctx.out.info(
      `capibot sim: warning: no credentials given; accepting the test credentials key=${creds.apiKey} secret=${creds.secret} passphrase=${creds.passphrase}`,
    );
  }
  const faults = flags.faults !== undefined ? await loadFaultProfile(flags.faults) : NO_FAULTS;
  const polls = await openPolls(flags.data);
  let server: SimServer;
  try {
    server = await createSimServer({
      polls,
      clock: flags.clock,
      speed: flags.speed,
      credentials: creds,
      matching: {
        fillModel: flags.fillModel,
        slippageBps: dec(flags.slippageBps),
        ...(flags.liquidity !== undefined ? { liquidityPerSnapshot: dec(flags.liquidity) } : {}),
        acceptDelayMs: flags.acceptDelayMs,
        cancelDelayMs: flags.cancelDelayMs,
      },
      limits: {
        ipWeightPerWindow: flags.ipWeight,
        uidWeightPerWindow: flags.uidWeight,
        orderRequestsPerSecond: flags.orderRate,
      },
      faults,
      ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
      idsAsNumbers: flags.idsAsStrings !== true,
      logger: log.child({ component: 'sim' }),
    });
  } catch (e) {
    await polls.close();
    throw e;
  }
  if (server.market.state().snapshotsApplied === 0) {
    await server.close();
    throw new BadInputError('the recording holds no polls', flags.data);
  }
  let address: { url: string };
  try {
    address = await server.listen(flags.port, flags.host);
  } catch (e) {
    await server.close();
    throw new ConfigError(
      `cannot listen on ${flags.host}:${flags.port}: ${e instanceof Error ? e.message : String(e)}`,
      '--port',
    );
  }
  const signals = untilStopped();
  ctx.out.data(`sim listening on ${address.url}`);
  log.info(
    {
      url: address.url,
      clock: flags.clock,
      data: flags.data,
      faults: flags.faults ?? null,
      fillModel: flags.fillModel,
    },
    'sim listening',
  );
  const sig = await signals;
  log.info({ signal: sig, stats: server.venue.statsSnapshot() }, 'sim stopping');
  await server.close();
  root.flush();
}
