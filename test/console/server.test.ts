// The console server's defences, on a fake source (src/console/server.ts): tokens and roles, the
// brute-force brake, CSRF checks, static files that no path can escape, request bodies (size, JSON,
// schema), and the absence of any secret in the answers.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConsoleTokens, TokenCheck } from '../../src/console/auth.ts';
import { startConsoleServer, type ConsoleServer } from '../../src/console/server.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { fakeSource, type FakeSource } from './fake-source.ts';

const CONTROL = 'the-control-token-0123456789';
const READ = 'the-read-token-0123456789abc';

let server: ConsoleServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(source: FakeSource = fakeSource(), maxFailures = 10): Promise<ConsoleServer> {
  server = await startConsoleServer({
    port: 0,
    tokens: { control: CONTROL, read: READ },
    source,
    failureLimit: { maxFailures, windowMs: 60_000 },
    pushMs: 10,
  });
  return server;
}

const auth = (t: string) => ({ Authorization: `Bearer ${t}` });
const csrf = { 'Content-Type': 'application/json', 'X-Capibot-Console': '1' };

function post(s: ConsoleServer, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${s.url}/api/control`, {
    method: 'POST',
    headers: { ...auth(CONTROL), ...csrf, ...headers },
    body,
  });
}

/** A raw request (fetch normalises paths: `..` must reach the server as sent). */
function raw(
  s: ConsoleServer,
  path: string,
  headers: Record<string, string> = auth(CONTROL),
): Promise<number> {
  return new Promise((ok, fail) => {
    const req = request({ host: s.host, port: s.port, path, headers }, (res) => {
      res.resume();
      ok(res.statusCode ?? 0);
    });
    req.once('error', fail);
    req.end();
  });
}

describe('console tokens', () => {
  it('refuses a non-loopback address without a token, and short or equal tokens', () => {
    const s = { host: '0.0.0.0', tokenEnv: 'T', readTokenEnv: 'R' };
    expect(() => resolveConsoleTokens(s, {})).toThrow(ConfigError);
    expect(() => resolveConsoleTokens(s, {})).toThrow(/not a loopback address, and T is not set/);
    expect(() => resolveConsoleTokens(s, { R: READ })).toThrow(/T is not set/);
    expect(() => resolveConsoleTokens({ ...s, host: '::' }, {})).toThrow(ConfigError);
    expect(() => resolveConsoleTokens(s, { T: 'short' })).toThrow(/shorter than 16/);
    expect(() => resolveConsoleTokens(s, { T: CONTROL, R: CONTROL })).toThrow(/same token/);
    expect(resolveConsoleTokens(s, { T: CONTROL })).toEqual({ control: CONTROL, generated: false });
    // Loopback without a variable: a random token of this run.
    for (const host of ['127.0.0.1', '::1', 'localhost', '127.1.2.3']) {
      const t = resolveConsoleTokens({ ...s, host }, {});
      expect(t.generated).toBe(true);
      expect(t.control.length).toBeGreaterThanOrEqual(32);
    }
  });

  it('tells the roles apart, by Bearer or by the password of Basic auth', () => {
    const c = new TokenCheck({ control: CONTROL, read: READ });
    expect(c.roleOf(CONTROL)).toBe('control');
    expect(c.roleOf(READ)).toBe('read');
    expect(c.roleOf(CONTROL.slice(0, -1))).toBeUndefined();
    expect(c.roleOf(`${CONTROL}x`)).toBeUndefined();
    expect(c.roleOf('')).toBeUndefined();
    expect(new TokenCheck({ control: CONTROL }).roleOf(CONTROL)).toBe('control');
  });
});

describe('console server', () => {
  it('serves the page, its files and the API to both tokens, and never echoes a token', async () => {
    const s = await serve();
    const basic = `Basic ${Buffer.from(`anyone:${READ}`).toString('base64')}`;
    for (const headers of [auth(CONTROL), { Authorization: basic }]) {
      for (const path of [
        '/',
        '/static/console.js',
        '/static/console.css',
        '/static/lightweight-charts.js',
        '/api/session',
        '/api/snapshot',
      ]) {
        const res = await fetch(`${s.url}${path}`, { headers });
        expect(res.status, path).toBe(200);
        expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        const text = await res.text();
        expect(text).not.toContain(CONTROL);
        expect(text).not.toContain(READ);
      }
    }
    const session = (await (
      await fetch(`${s.url}/api/session`, { headers: { Authorization: basic } })
    ).json()) as { role: string };
    expect(session.role).toBe('read');
  });

  it('lets a read-only token look but not act', async () => {
    const src = fakeSource();
    const s = await serve(src);
    const res = await post(s, JSON.stringify({ action: 'kill', confirm: 'KILL' }), auth(READ));
    expect(res.status).toBe(403);
    expect(src.killed).toBe(0);
  });

  it('refuses control of a finished backtest', async () => {
    const s = await serve(fakeSource(false));
    const res = await post(s, JSON.stringify({ action: 'pause', strategy: 'alpha' }));
    expect(res.status).toBe(403);
  });

  it('brakes token guessing: after 10 wrong tokens even the right one gets 429 for a while', async () => {
    const s = await serve();
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${s.url}/api/snapshot`, { headers: auth(`guess-${i}-xxxxxxxxxxxxxxxx`) });
      expect(res.status).toBe(401);
    }
    const blocked = await fetch(`${s.url}/api/snapshot`, { headers: auth('guess-again-xxxxxxxxxxxx') });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // The right token does not get through either while the brake holds (no oracle for the guesser).
    expect((await fetch(`${s.url}/api/snapshot`, { headers: auth(CONTROL) })).status).toBe(429);
  });

  it('does not count requests without a token (the browser asking for Basic auth)', async () => {
    const s = await serve(fakeSource(), 3);
    for (let i = 0; i < 10; i++) expect((await fetch(`${s.url}/api/snapshot`)).status).toBe(401);
    expect((await fetch(`${s.url}/api/snapshot`, { headers: auth(CONTROL) })).status).toBe(200);
  });

  it('refuses cross-site control requests (CSRF)', async () => {
    const src = fakeSource();
    const s = await serve(src);
    const body = JSON.stringify({ action: 'kill', confirm: 'KILL' });
    const host = `${s.host}:${s.port}`;
    const attempts: Record<string, string>[] = [
      { 'X-Capibot-Console': '' }, // no custom header (what a form post or a simple fetch sends)
      { 'Content-Type': 'text/plain' }, // a "simple" content type
      { 'Content-Type': 'application/x-www-form-urlencoded' },
      { Origin: 'https://evil.example' },
      { Origin: 'null' },
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site' },
      { Referer: 'https://evil.example/page' },
      { Origin: `http://${host}.evil.example` },
    ];
    for (const headers of attempts) {
      const res = await post(s, body, headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
    }
    expect(src.killed).toBe(0);
    // The page's own request passes: same origin, the custom header, JSON.
    const ok = await post(s, body, { Origin: `http://${host}`, 'Sec-Fetch-Site': 'same-origin' });
    expect(ok.status).toBe(200);
    expect(src.killed).toBe(1);
    // A preflight is never granted.
    const pre = await fetch(`${s.url}/api/control`, {
      method: 'OPTIONS',
      headers: { ...auth(CONTROL), Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(pre.status).toBe(405);
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves no file outside its table, whatever the path', async () => {
    const s = await serve();
    const paths = [
      '/static/../../../../etc/passwd',
      '/static/..%2f..%2f..%2fetc%2fpasswd',
      '/static/%2e%2e/%2e%2e/package.json',
      '/..%5c..%5cpackage.json',
      '/static/console.js/../../server.ts',
      '/static//etc/passwd',
      '/static/console.js%00.png',
      '/src/console/server.ts',
      '/package.json',
      '//etc/passwd',
      '/static/',
    ];
    for (const p of paths) expect(await raw(s, p), p).toBe(404);
    // Without a token, 401 comes first (nothing about the file system is told).
    expect(await raw(s, '/static/../../etc/passwd', {})).toBe(401);
  });

  it('answers oversized, malformed and wrong bodies with a 4xx and keeps serving', async () => {
    const src = fakeSource();
    const s = await serve(src);
    const big = await post(s, JSON.stringify({ action: 'pause', strategy: 'x'.repeat(10_000) }));
    expect(big.status).toBe(413);
    for (const body of [
      '{',
      'null',
      '[]',
      '"kill"',
      '{"action":"kill"}',
      '{"action":"kill","confirm":"yes"}',
      '{"action":"pause"}',
      '{"action":"pause","strategy":"alpha","extra":1}',
      '{"action":"explode"}',
      '\u0000\u0001',
    ]) {
      const res = await post(s, body);
      expect(res.status, body).toBe(400);
    }
    expect((await post(s, JSON.stringify({ action: 'pause', strategy: 'nobody' }))).status).toBe(404);
    expect(src.killed).toBe(0);
    expect(src.paused.size).toBe(0);
    // A body sent without a declared length (chunked), larger than the limit: refused once it passes it.
    const streamed = await fetch(`${s.url}/api/control`, {
      method: 'POST',
      headers: { ...auth(CONTROL), ...csrf },
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < 64; i++) c.enqueue(new Uint8Array(1024).fill(32));
          c.close();
        },
      }),
      duplex: 'half',
    }).catch(() => undefined);
    if (streamed !== undefined) expect(streamed.status).toBe(413);
    expect((await fetch(`${s.url}/api/snapshot`, { headers: auth(CONTROL) })).status).toBe(200);
    expect((await post(s, JSON.stringify({ action: 'pause', strategy: 'alpha' }))).status).toBe(200);
    expect([...src.paused]).toEqual(['alpha']);
  });

  it('pushes a snapshot over the event stream after a change', async () => {
    const src = fakeSource();
    const s = await serve(src);
    const res = await fetch(`${s.url}/api/events`, { headers: auth(CONTROL) });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    let text = '';
    const read = async (until: (t: string) => boolean): Promise<void> => {
      while (!until(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        text += new TextDecoder().decode(value);
      }
    };
    await read((t) => t.includes('event: snapshot'));
    src.paused.add('beta');
    src.change();
    await read((t) => t.includes('"state":"paused"'));
    await reader.cancel();
  });
});
