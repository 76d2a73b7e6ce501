// What `capibot run` refuses before anything starts: a console on a non-loopback address without the
// control token, a short token, a notification target whose URL variable is unset. Nothing is bound,
// no store is created.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import { everyDayAt } from '../../src/notify/daily.ts';
import { runTrading } from '../../src/runner/runner.ts';
import { paperConfig } from '../runner/paper-config.ts';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
  vi.useRealTimers();
});

describe('start-up checks of the console and the notifications', () => {
  it('refuses a console on a public address without a token, and a missing webhook URL', async () => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-console-start-'));
    const store = join(dir, 'store.sqlite');
    const run = (extra: string[], env: Record<string, string> = {}) =>
      runTrading({
        config: paperConfig(store, extra),
        env,
        live: false,
        signals: false,
        logger: { level: 'silent' },
        say: () => undefined,
      });
    const publicConsole = ['console:', '  enabled: true', '  host: 0.0.0.0', '  port: 0'];
    await expect(run(publicConsole)).rejects.toThrow(ConfigError);
    await expect(run(publicConsole)).rejects.toThrow(
      /not a loopback address, and CAPIBOT_CONSOLE_TOKEN is not set/,
    );
    await expect(run(publicConsole, { CAPIBOT_CONSOLE_TOKEN: 'too-short' })).rejects.toThrow(
      /shorter than 16/,
    );
    await expect(run(['notify:', '  targets:', '    - { name: ops, urlEnv: OPS_HOOK }'])).rejects.toThrow(
      /OPS_HOOK is not set/,
    );
    expect(existsSync(store)).toBe(false);
  });
});

describe('a console on loopback without a token variable', () => {
  it('makes a token for the run, says it once, and lets only it in', async () => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-console-start-'));
    const said: string[] = [];
    const answers: number[] = [];
    const probes: Promise<void>[] = [];
    const result = await runTrading({
      config: paperConfig(join(dir, 'store.sqlite'), ['console:', '  enabled: true', '  port: 0']),
      env: {},
      live: false,
      signals: false,
      logger: { level: 'silent' },
      say: (line) => {
        said.push(line);
        const token = /this run's control token is (\S+) /.exec(line)?.[1];
        const url = said
          .map((l) => /^console on (http:\/\/[^/]+)\//.exec(l)?.[1])
          .find((u) => u !== undefined);
        if (token === undefined || url === undefined) return;
        probes.push(
          (async () => {
            answers.push((await fetch(`${url}/api/session`)).status);
            answers.push(
              (await fetch(`${url}/api/session`, { headers: { Authorization: `Bearer ${token}` } })).status,
            );
          })(),
        );
      },
    });
    await Promise.all(probes);
    expect(result.exitCode).toBe(0);
    expect(answers).toEqual([401, 200]);
    expect(said.filter((l) => l.includes('control token is'))).toHaveLength(1);
  }, 30_000);
});

describe('the daily summary timer', () => {
  it('fires at the configured UTC hour, every day', () => {
    vi.useFakeTimers();
    vi.setSystemTime(Date.UTC(2026, 0, 1, 10, 30));
    const fired: string[] = [];
    const stop = everyDayAt(7, () => fired.push(new Date().toISOString()));
    vi.advanceTimersByTime(3 * 86_400_000);
    stop();
    vi.advanceTimersByTime(86_400_000);
    expect(fired).toEqual([
      '2026-01-02T07:00:00.000Z',
      '2026-01-03T07:00:00.000Z',
      '2026-01-04T07:00:00.000Z',
    ]);
  });
});
