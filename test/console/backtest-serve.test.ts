// `capibot backtest … --serve` as a user runs it (the CLI in a child process): the backtest runs and
// writes its report, then the finished run is served read-only with the same token rules until
// SIGTERM, which ends the command with exit code 0; so does a Ctrl-C, which reaches both the command
// and the backtest it runs under the heap cap.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/capibot-processes.ts';
import { bearer, READ_TOKEN, TOKEN } from './harness.ts';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/**
 * Starts `capibot backtest --strategy strategies/ema-cross.ts --serve` writing to a fresh `dir`;
 * resolves once it says where its console is. `detached`: in a process group of its own.
 */
async function startServe(detached = false) {
  dir = mkdtempSync(join(tmpdir(), 'capibot-backtest-serve-'));
  const child = spawn(
    process.execPath,
    [
      'bin/capibot.js',
      'backtest',
      '--strategy',
      'strategies/ema-cross.ts',
      '--out',
      dir,
      '--serve',
      '--serve-port',
      '0',
    ],
    {
      env: { ...cleanEnv(), CAPIBOT_CONSOLE_TOKEN: TOKEN, CAPIBOT_CONSOLE_READ_TOKEN: READ_TOKEN },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached,
    },
  );
  const exited = once(child, 'exit');
  const lines: string[] = [];
  const url = await new Promise<string>((ok, fail) => {
    const rl = createInterface({ input: child.stderr });
    rl.on('line', (line) => {
      lines.push(line);
      const m = /^backtest: console on (http:\/\/[^/]+)\//.exec(line);
      if (m?.[1] !== undefined) ok(m[1]);
    });
    void exited.then(() => fail(new Error(`exited early: ${lines.join('\n')}`)));
  });
  return { child, exited, lines, url };
}

describe('capibot backtest --serve', () => {
  it('serves the finished run read-only until SIGTERM', async () => {
    const { child, exited, lines, url } = await startServe();
    try {
      expect((await fetch(`${url}/api/snapshot`)).status).toBe(401);
      const snap = (await (await fetch(`${url}/api/snapshot`, { headers: bearer(READ_TOKEN) })).json()) as {
        mode: string;
        strategies: { id: string; state: string }[];
        fills: unknown[];
      };
      expect(snap.mode).toBe('backtest');
      expect(snap.strategies.map((s) => s.id)).toEqual(['ema_cross']);
      expect(snap.fills.length).toBeGreaterThan(0);
      const page = await fetch(`${url}/`, { headers: bearer(READ_TOKEN) });
      expect(await page.text()).toContain('/static/console.js');
      const control = await fetch(`${url}/api/control`, {
        method: 'POST',
        headers: { ...bearer(TOKEN), 'Content-Type': 'application/json', 'X-Capibot-Console': '1' },
        body: JSON.stringify({ action: 'kill', confirm: 'KILL' }),
      });
      expect(control.status).toBe(403);
      // No token appears in what the command said.
      expect(lines.join('\n')).not.toContain(TOKEN);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  }, 120_000);

  it('ends with exit code 0 on a Ctrl-C, which reaches the command and the backtest it runs under the heap cap', async () => {
    // Its own process group, as a terminal's foreground job: a signal to the group reaches both the
    // command and the child node it started (bin/capibot.js), once each.
    const { child, exited } = await startServe(true);
    process.kill(-(child.pid as number), 'SIGINT');
    const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
    expect({ code, signal }).toEqual({ code: 0, signal: null });
  }, 120_000);
});
