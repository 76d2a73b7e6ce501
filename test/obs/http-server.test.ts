// /health, /ready and the other answers of the observability endpoint, over loopback.
import { request } from 'node:http';
import { ConfigError } from '../../src/core/errors.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { readinessOf, startObsServer } from '../../src/obs/http-server.ts';
import type { ObsServer, Readiness } from '../../src/obs/http-server.ts';
import { createPromMetrics } from '../../src/obs/metrics.ts';

let server: ObsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(
  readiness: () => Readiness | Promise<Readiness>,
  withMetrics = true,
): Promise<ObsServer> {
  server = await startObsServer({
    port: 0,
    readiness,
    ...(withMetrics ? { registry: createPromMetrics({ defaultMetrics: false }).registry } : {}),
  });
  return server;
}

describe('observability endpoint', () => {
  it('binds to 127.0.0.1 by default', async () => {
    const s = await start(() => ({ reconciled: true, fresh: true }));
    expect(s.host).toBe('127.0.0.1');
    expect(s.url).toBe(`http://127.0.0.1:${s.port}`);
  });

  it('a port in use (a second runner on the config) is a config error naming metrics.port (exit 2)', async () => {
    const first = await start(() => ({ reconciled: true, fresh: true }));
    const e = await startObsServer({
      port: first.port,
      readiness: () => ({ reconciled: true, fresh: true }),
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as ConfigError).message).toBe(
      `metrics.port: 127.0.0.1:${first.port} is already in use (another capibot run on this config? see \`capibot status\`); choose another port, or 0 for any free one`,
    );
    expect((e as ConfigError).exitCode).toBe(2);
  });

  it('/health answers 200 whatever readiness says', async () => {
    const s = await start(() => ({ reconciled: false, fresh: false }));
    const res = await fetch(`${s.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'alive' });
  });

  it('/ready answers 200 only when reconciled and fresh', async () => {
    let state: Readiness = { reconciled: false, fresh: true };
    const s = await start(() => state);
    let res = await fetch(`${s.url}/ready`);
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      ready: false,
      reason: 'not reconciled',
      reconciled: false,
      fresh: true,
    });

    state = { reconciled: true, fresh: false, detail: 'cmt_btcusdt ticker 31 s old' };
    res = await fetch(`${s.url}/ready`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      ready: false,
      reason: 'polling stale',
      detail: 'cmt_btcusdt ticker 31 s old',
    });

    state = { reconciled: true, fresh: true };
    res = await fetch(`${s.url}/ready`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ready: true });
  });

  it('/ready is 503 when the check throws or rejects', async () => {
    expect(await readinessOf(() => Promise.reject(new Error('boom')))).toEqual({
      status: 503,
      body: { ready: false, reason: 'readiness check failed' },
    });
    const s = await start(() => {
      throw new Error('boom');
    });
    expect((await fetch(`${s.url}/ready`)).status).toBe(503);
  });

  it('answers 404 for other paths, 405 for other methods, and 404 on /metrics without a registry', async () => {
    const s = await start(() => ({ reconciled: true, fresh: true }), false);
    expect((await fetch(`${s.url}/nope`)).status).toBe(404);
    expect((await fetch(`${s.url}/metrics`)).status).toBe(404);
    const post = await fetch(`${s.url}/health`, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('HEAD gets the status without a body', async () => {
    const s = await start(() => ({ reconciled: true, fresh: true }));
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${s.url}/health`, { method: 'HEAD' }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(200);
  });

});
