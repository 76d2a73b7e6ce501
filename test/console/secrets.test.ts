// The console's tokens and the webhook URLs are secrets like the API credentials: after a paper run
// with the console used (right and wrong tokens, a pause) and notifications sent, none of them is in
// the log (at trace level), in anything the runner said, in the console's answers, or in the store.
import { readFileSync, mkdtempSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runTrading } from '../../src/runner/runner.ts';
import { sendJson, startLocalServer } from '../helpers/local-server.ts';
import { paperConfig } from '../runner/paper-config.ts';

const CONTROL = 'ConsoleCanaryControl-4f9a2c71e0';
const READ = 'ConsoleCanaryRead-8b3d5e6f12';
const HOOK_SECRET = 'HookCanarySecret-77aa1f';
const SECRETS = [CONTROL, READ, HOOK_SECRET];

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('console and webhook secrets', () => {
  it('never appear in logs, terminal lines, console answers or the store', async () => {
    dir = mkdtempSync(join(tmpdir(), 'capibot-console-secrets-'));
    const hook = await startLocalServer((_req, res) => sendJson(res, 200, {}));
    let log = '';
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        log += chunk.toString();
        done();
      },
    });
    const said: string[] = [];
    const answers: string[] = [];
    const probes: Promise<void>[] = [];
    const probe = async (base: string): Promise<void> => {
      const get = async (path: string, token: string): Promise<void> => {
        const res = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
        answers.push(JSON.stringify([...res.headers]), await res.text());
      };
      for (const path of ['/', '/api/session', '/api/snapshot', '/static/console.js']) {
        await get(path, CONTROL);
        await get(path, READ);
        await get(path, `${CONTROL}-wrong`);
      }
      const res = await fetch(`${base}/api/control`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${CONTROL}`,
          'Content-Type': 'application/json',
          'X-Capibot-Console': '1',
        },
        body: JSON.stringify({ action: 'pause', strategy: 'churn' }),
      });
      answers.push(await res.text());
      expect(res.status).toBe(200);
    };
    try {
      const result = await runTrading({
        config: paperConfig(join(dir, 'store.sqlite'), [
          'console:',
          '  enabled: true',
          '  port: 0',
          'notify:',
          '  targets:',
          '    - { name: ops, urlEnv: OPS_HOOK }',
          'log:',
          '  level: trace',
        ]),
        env: {
          CAPIBOT_CONSOLE_TOKEN: CONTROL,
          CAPIBOT_CONSOLE_READ_TOKEN: READ,
          OPS_HOOK: `${hook.url}/${HOOK_SECRET}`,
        },
        live: false,
        signals: false,
        logger: { level: 'trace', destination },
        say: (line) => {
          said.push(line);
          const m = /^console on (http:\/\/[^/]+)\//.exec(line);
          if (m?.[1] !== undefined) probes.push(probe(m[1]));
        },
      });
      await Promise.all(probes);
      expect(result.exitCode).toBe(0);
    } finally {
      await hook.close();
    }
    expect(answers.length).toBe(25);
    expect(hook.requests.length).toBeGreaterThan(0);
    expect(log).toMatch(/console: control action/);
    const found = (where: string, text: string | Buffer): void => {
      const bytes = typeof text === 'string' ? Buffer.from(text) : text;
      for (const s of SECRETS) {
        expect(bytes.includes(Buffer.from(s, 'utf8')), `${s} in ${where}`).toBe(false);
        expect(bytes.includes(Buffer.from(s, 'utf16le')), `${s} in ${where} (utf-16)`).toBe(false);
      }
    };
    found('the log', log);
    found('what the runner said', said.join('\n'));
    found('the console answers', answers.join('\n'));
    for (const f of readdirSync(dir)) found(f, readFileSync(join(dir, f)));
  }, 60_000);
});
