// The run's operator surfaces beyond the terminal: the web console (src/console/) and the webhook
// notifications (src/notify/), composed here so that runner.ts only calls three things:
//   resolveSurfaces   before anything starts: tokens and webhook URLs from the environment (a console
//                     on a public address without a token is refused here), plus their values for the
//                     logger's censor;
//   startSurfaces     once the engine exists: the notifications (they must hear the kill switch);
//   openConsole       once the operator channel exists (the console's kill button goes through it).
// Both close with the run. Nothing here can stop trading once it runs: failures are logged.
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Env } from '../config/interpolate.ts';
import type { Config } from '../config/schema.ts';
import { resolveConsoleTokens, type ConsoleTokens } from '../console/auth.ts';
import { dec } from '../core/decimal.ts';
import type { Engine } from '../engine/engine.ts';
import { resolveNotifyTargets } from '../notify/targets.ts';
import type { NotifyTarget } from '../notify/types.ts';
import type { PromMetrics } from '../obs/metrics.ts';
import type { Observability } from '../obs/setup.ts';
import type { RoundResult } from '../reconcile/round.ts';
import type { OrderStore } from '../store/port.ts';
import { startRunnerConsole, type RunnerConsole } from './console.ts';
import type { RunnerControl } from './control.ts';
import { startRunNotifications, type RunNotifications } from './notify.ts';
import type { PauseBook } from './pause.ts';

/** The console's tokens and the webhook targets, resolved from the environment at start. */
export interface Surfaces {
  readonly consoleTokens?: ConsoleTokens;
  readonly notifyTargets: readonly NotifyTarget[];
}

export function resolveSurfaces(config: Config, env: Env): Surfaces {
  return {
    ...(config.console.enabled ? { consoleTokens: resolveConsoleTokens(config.console, env) } : {}),
    notifyTargets: resolveNotifyTargets(config.notify, env),
  };
}

/** The literal secret values (tokens, webhook URLs), for the logger's censor. */
export function surfaceSecrets(s: Surfaces): string[] {
  const t = s.consoleTokens;
  return [
    ...(t !== undefined ? [t.control, ...(t.read !== undefined ? [t.read] : [])] : []),
    ...s.notifyTargets.map((n) => n.url),
  ];
}

export interface SurfacesDeps {
  readonly config: Config;
  readonly surfaces: Surfaces;
  readonly engine: Engine;
  readonly store: OrderStore;
  readonly pauses: PauseBook;
  readonly obs: Observability;
  readonly log: Logger;
  readonly say: (line: string) => void;
}

export interface RunSurfaces {
  /** A committed reconciliation round (fills, warnings). */
  round(r: RoundResult): void;
  /** The kill switch was engaged (the operator channel's onKill). */
  killed(reason: string): void;
  /** Starts the console (when enabled) on the run's operator channel. */
  openConsole(control: RunnerControl): Promise<void>;
  close(): Promise<void>;
}

export function startSurfaces(d: SurfacesDeps): RunSurfaces {
  const { config, surfaces } = d;
  const notify: RunNotifications | undefined =
    surfaces.notifyTargets.length > 0
      ? startRunNotifications({
          config,
          targets: surfaces.notifyTargets,
          engine: d.engine,
          store: d.store,
          log: d.log,
          registry: registryOf(d.obs.metrics),
        })
      : undefined;
  let web: RunnerConsole | undefined;
  return {
    round: (r) => {
      web?.round(r);
      notify?.round(r);
    },
    killed: (reason) => notify?.killed(reason),
    openConsole: async (control) => {
      if (surfaces.consoleTokens !== undefined)
        web = await startRunnerConsole({
          config,
          tokens: surfaces.consoleTokens,
          engine: d.engine,
          store: d.store,
          control,
          pauses: d.pauses,
          log: d.log,
          say: d.say,
          ...(config.mode === 'paper' ? { startingEquity: dec(config.paper.startingBalance) } : {}),
          onAction: (what, strategy) => {
            if (what !== 'kill')
              notify?.say(
                'disabled',
                `capibot: strategy ${strategy} ${what}d`,
                `${strategy} ${what}d from the console`,
              );
          },
        });
      const paused = d.pauses.paused();
      if (paused.length > 0)
        d.say(
          `capibot run: warning: ${paused.join(', ')} ${paused.length === 1 ? 'is' : 'are'} paused (from an earlier run): ` +
            'their opening placements are dropped until resumed from the console',
        );
    },
    close: async () => {
      await web?.close().catch((e: unknown) => d.log.error({ err: e }, 'console close failed'));
      await notify?.close().catch((e: unknown) => d.log.error({ err: e }, 'notifications close failed'));
    },
  };
}

/** The prom-client registry behind the run's metrics (absent when metrics are off). */
function registryOf(m: Observability['metrics']): Registry | undefined {
  return (m as Partial<PromMetrics>).registry;
}
