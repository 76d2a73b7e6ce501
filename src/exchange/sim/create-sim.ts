// Assembles a simulator from options: matching core, venue (weights, faults, counters), clock mode
// and HTTP server. The CLI (`capibot sim`) and the tests build their simulators here.
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import type { Credentials } from '../weex/signer.ts';
import { FaultInjector, NO_FAULTS, type FaultProfile } from './faults.ts';
import {
  LockstepMarket,
  RealtimeMarket,
  type ClockMode,
  type MarketDriver,
  type PollSource,
} from './market-clock.ts';
import { MatchingCore, type MatchingConfig } from './matching.ts';
import type { PlanRowStyle } from './plan-wire.ts';
import { SimServer } from './server.ts';
import { SimVenue } from './venue.ts';
import { WeightLimiter, type WeightLimits } from './weights.ts';
import { SIM_TEST_CREDENTIALS } from './test-credentials.ts';

export interface SimServerSetup {
  readonly polls: PollSource;
  readonly clock?: ClockMode;
  /** Realtime mode: recorded time runs at wall clock × speed. Default 1. */
  readonly speed?: number;
  readonly credentials?: Credentials;
  readonly matching?: Omit<MatchingConfig, 'seed'>;
  readonly limits?: Partial<WeightLimits>;
  readonly faults?: FaultProfile;
  /** Seeds ids and fault dice; default the profile's seed, else 1. */
  readonly seed?: number;
  /** Fills tradeId/orderId as JSON numbers (default true, like the venue). */
  readonly idsAsNumbers?: boolean;
  /** Plan rows in the documented codes (default) or the live upper-case words. */
  readonly planRowStyle?: PlanRowStyle;
  readonly serverClock?: Clock;
  readonly timestampToleranceMs?: number;
  readonly logger?: Logger;
  readonly sleep?: (ms: number) => Promise<void>;
}

export async function createSimServer(setup: SimServerSetup): Promise<SimServer> {
  const faults = setup.faults ?? NO_FAULTS;
  const seed = setup.seed ?? faults.seed ?? 1;
  const core = new MatchingCore({ ...setup.matching, seed });
  const venue = new SimVenue({
    core,
    limiter: new WeightLimiter(setup.limits ?? {}),
    faults: new FaultInjector(faults, seed),
    idsAsNumbers: setup.idsAsNumbers ?? true,
    ...(setup.planRowStyle !== undefined ? { planRowStyle: setup.planRowStyle } : {}),
  });
  const wall: Clock = setup.serverClock ?? { now: () => Date.now() };
  const market: MarketDriver =
    (setup.clock ?? 'lockstep') === 'lockstep'
      ? await LockstepMarket.start(core, setup.polls)
      : await RealtimeMarket.start(core, setup.polls, wall, setup.speed ?? 1);
  return new SimServer({
    venue,
    market,
    credentials: setup.credentials ?? SIM_TEST_CREDENTIALS,
    serverClock: wall,
    ...(setup.timestampToleranceMs !== undefined ? { timestampToleranceMs: setup.timestampToleranceMs } : {}),
    ...(setup.logger !== undefined ? { logger: setup.logger } : {}),
    ...(setup.sleep !== undefined ? { sleep: setup.sleep } : {}),
  });
}
