// Notifications from a real paper run (embedded simulator over a recording): fills reach a working
// webhook, while a webhook that answers 500 and one that never answers are retried, given up and
// counted in the metrics — and the run trades to the end of its data as if nothing happened.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTrading } from '../../src/runner/runner.ts';
import { sendJson, startLocalServer, startSilentServer } from '../helpers/local-server.ts';
import { paperConfig } from '../runner/paper-config.ts';

const closers: (() => Promise<void>)[] = [];
let dir: string | undefined;
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('notifications of a paper run', () => {
  it('delivers fills to a working webhook; failing ones are counted and never stop trading', async () => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-notify-run-'));
    const good = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
    const bad = await startLocalServer((_req, res) => sendJson(res, 500, { ok: false }));
    const hang = await startSilentServer();
    closers.push(
      () => good.close(),
      () => bad.close(),
      () => hang.close(),
    );
    const config = paperConfig(join(dir, 'store.sqlite'), [
      'notify:',
      '  targets:',
      '    - { name: good, urlEnv: GOOD_URL, format: json }',
      '    - { name: bad, urlEnv: BAD_URL, format: discord, events: [fill] }',
      '    - { name: hang, urlEnv: HANG_URL, format: slack, events: [fill] }',
      '  timeoutMs: 200',
      '  retries: 1',
      '  retryBackoffMs: 10',
      '  maxPerMinute: 600',
    ]);
    let metrics = '';
    const polls: Promise<void>[] = [];
    const said: string[] = [];
    const result = await runTrading({
      config,
      env: { GOOD_URL: `${good.url}/hook?token=secret-in-the-url`, BAD_URL: bad.url, HANG_URL: hang.url },
      live: false,
      signals: false,
      logger: { level: 'silent' },
      say: (line) => {
        said.push(line);
        const m = /metrics on (http:\/\/[^/]+)\/metrics/.exec(line);
        if (m?.[1] === undefined) return;
        const base = m[1];
        polls.push(
          (async () => {
            for (let i = 0; i < 200; i++) {
              const res = await fetch(`${base}/metrics`).catch(() => undefined);
              if (res === undefined) return;
              metrics = await res.text();
              if (/capibot_notify_failed_total\{target="hang",reason="timeout"\} [1-9]/.test(metrics)) return;
              await new Promise((r) => setTimeout(r, 100));
            }
          })(),
        );
      },
    });
    await Promise.all(polls);
    expect(result).toMatchObject({ exitCode: 0, reason: 'the recording ended' });
    const events = good.requests.map((r) => (JSON.parse(r.body) as { event: string }).event);
    expect(events).toContain('fill');
    expect(good.requests[0]?.path).toBe('/hook');
    expect(bad.requests.length).toBeGreaterThan(0);
    expect(hang.connections()).toBeGreaterThan(0);
    expect(metrics).toMatch(/capibot_notify_sent_total\{target="good"\} [1-9]/);
    expect(metrics).toMatch(/capibot_notify_failed_total\{target="bad",reason="http_5xx"\} [1-9]/);
    expect(metrics).toMatch(/capibot_notify_failed_total\{target="hang",reason="timeout"\} [1-9]/);
    // The webhook URLs (secrets) appear nowhere the operator reads.
    expect(said.join('\n')).not.toContain('secret-in-the-url');
  }, 60_000);
});
