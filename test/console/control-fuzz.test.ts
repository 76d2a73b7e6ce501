// The control API against a real runner trading on `capibot sim`: hostile bodies (oversized,
// malformed, wrong shapes) get a 4xx and leave it trading, and a fast-check fuzz of command sequences
// (valid, invalid, read-only, without the CSRF header) leaves the runner's state exactly as a model
// of the valid commands says: the paused set, and HALTED once a confirmed kill went through.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashVenue } from '../helpers/capibot-processes.ts';
import { bearer, READ_TOKEN, startConsoleRun, TOKEN, type ConsoleRun } from './harness.ts';

const venue = crashVenue('console-fuzz', { seed: 19, t0: Date.UTC(2026, 1, 2) }, { faults: [] });

interface Snap {
  tradingState: string;
  strategies: { id: string; state: string }[];
  fills: unknown[];
}

let run: ConsoleRun | undefined;
beforeAll(async () => {
  run = await startConsoleRun(venue().sim.url, venue().dir);
}, 60_000);
afterAll(async () => {
  await run?.stop();
}, 60_000);

const csrf = { 'Content-Type': 'application/json', 'X-Capibot-Console': '1' };

async function snapshot(r: ConsoleRun): Promise<Snap> {
  const res = await fetch(`${r.url}/api/snapshot`, { headers: bearer(TOKEN) });
  expect(res.status).toBe(200);
  return (await res.json()) as Snap;
}

function send(r: ConsoleRun, body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${r.url}/api/control`, { method: 'POST', headers, body });
}

describe('console control API on a running bot', () => {
  it('answers hostile bodies with a 4xx and keeps trading', async () => {
    const r = run;
    if (r === undefined) return expect.fail('no runner');
    const headers = { ...bearer(TOKEN), ...csrf };
    const bodies: [string, number][] = [
      ['x'.repeat(100_000), 413],
      [`{"action":"pause","strategy":"${'a'.repeat(5000)}"}`, 413],
      ['{"action":', 400],
      ['{"__proto__":{"action":"kill"}}', 400],
      ['{"action":"kill","confirm":"KILL","reason":' + JSON.stringify('r'.repeat(300)) + '}', 400],
      ['{"action":"pause","strategy":["churn"]}', 400],
      ['{"action":"resume","strategy":"../churn"}', 404],
    ];
    for (const [body, status] of bodies) {
      const res = await send(r, body, headers);
      expect(res.status, body.slice(0, 60)).toBe(status);
      await res.arrayBuffer();
    }
    const before = (await snapshot(r)).fills.length;
    const s = await snapshot(r);
    expect(s.tradingState).toBe('ACTIVE');
    expect(s.strategies.map((x) => x.state)).toEqual(['running', 'running']);
    // Still trading: new fills keep arriving.
    for (let i = 0; i < 100 && (await snapshot(r)).fills.length === before; i++)
      await new Promise((res) => setTimeout(res, 100));
    expect((await snapshot(r)).fills.length).toBeGreaterThan(before);
  }, 30_000);

  it('keeps the runner state consistent under a fuzz of control requests', async () => {
    const r = run;
    if (r === undefined) return expect.fail('no runner');
    const ids = ['churn', 'second'];
    const strategy = fc.oneof(fc.constantFrom(...ids), fc.string({ maxLength: 20 }));
    const command = fc.record({
      body: fc.oneof(
        fc.record({ action: fc.constantFrom('pause', 'resume'), strategy }),
        fc.record({
          action: fc.constant('kill'),
          confirm: fc.constantFrom('KILL', 'kill', 'yes'),
          reason: fc.string({ maxLength: 50 }),
        }),
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
        fc.constant('not json'),
      ),
      token: fc.constantFrom('control', 'control', 'control', 'read', 'none'),
      csrfHeader: fc.boolean(),
    });
    const model = { paused: new Set<string>(), halted: false };
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 6 }), async (commands) => {
        for (const c of commands) {
          const headers: Record<string, string> = {
            'Content-Type': 'application/json',
            ...(c.csrfHeader ? { 'X-Capibot-Console': '1' } : {}),
            ...(c.token === 'control' ? bearer(TOKEN) : c.token === 'read' ? bearer(READ_TOKEN) : {}),
          };
          const text = typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
          const res = await send(r, text, headers);
          await res.arrayBuffer();
          // What the model says may happen: only a control token with the CSRF header and a valid body.
          const allowed = c.token === 'control' && c.csrfHeader;
          const b = c.body as Record<string, unknown>;
          const valid =
            typeof c.body !== 'string' &&
            Object.keys(b).every((k) => ['action', 'strategy', 'confirm', 'reason'].includes(k));
          if (
            allowed &&
            valid &&
            (b['action'] === 'pause' || b['action'] === 'resume') &&
            ids.includes(String(b['strategy'])) &&
            Object.keys(b).length === 2
          ) {
            expect(res.status).toBe(200);
            if (b['action'] === 'pause') model.paused.add(String(b['strategy']));
            else model.paused.delete(String(b['strategy']));
          } else if (
            allowed &&
            valid &&
            b['action'] === 'kill' &&
            b['confirm'] === 'KILL' &&
            Object.keys(b).length === 3
          ) {
            expect(res.status).toBe(200);
            model.halted = true;
          } else {
            expect(res.status).toBeGreaterThanOrEqual(400);
            expect(res.status).toBeLessThan(500);
          }
          const s = await snapshot(r);
          expect(s.tradingState).toBe(model.halted ? 'HALTED' : 'ACTIVE');
          for (const st of s.strategies)
            expect(st.state, st.id).toBe(model.paused.has(st.id) ? 'paused' : 'running');
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
