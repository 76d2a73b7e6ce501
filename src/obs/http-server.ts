// The observability endpoint: node:http on 127.0.0.1 by default.
//   GET /metrics  Prometheus text format (from the PromMetrics registry)
//   GET /health   200 {"status":"alive"} while the process serves requests (liveness)
//   GET /ready    200 {"ready":true} only when the readiness callback says reconciled AND fresh;
//                 503 {"ready":false,"reason":...} otherwise (readiness)
// Anything else: 404; methods other than GET/HEAD: 405. No request body is ever read.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { ConfigError } from '../core/errors.ts';

/** What /ready needs to know, asked on every request. */
export interface Readiness {
  /** The start-up reconciliation is done and the last pass is recent. */
  readonly reconciled: boolean;
  /** Tickers (and the other pollers) are fresh: nothing older than polling.staleAfterMs. */
  readonly fresh: boolean;
  /** Why not, in a few words (shown in the 503 body). */
  readonly detail?: string;
}

export type ReadinessCheck = () => Readiness | Promise<Readiness>;

export interface ObsServerOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** 0 = any free port. */
  readonly port: number;
  /** Absent: /metrics answers 404 (e.g. metrics disabled but health wanted). */
  readonly registry?: Registry;
  readonly readiness: ReadinessCheck;
  readonly logger?: Logger;
}

export interface ObsServer {
  readonly host: string;
  readonly port: number;
  /** `http://host:port` */
  readonly url: string;
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export async function startObsServer(opts: ObsServerOptions): Promise<ObsServer> {
  const host = opts.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    handle(req, res, opts).catch((e: unknown) => {
      opts.logger?.error({ err: e, path: req.url }, 'observability endpoint failed');
      if (!res.headersSent) send(res, 500, JSON_TYPE, JSON.stringify({ error: 'internal error' }));
      else res.end();
    });
  });
  server.keepAliveTimeout = 5_000;
  await listen(server, opts.port, host);
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  opts.logger?.info({ host, port }, 'observability endpoint listening (/metrics, /health, /ready)');
  return {
    host,
    port,
    url: `http://${shownHost}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      // The usual cause: another runner on the same config. Said as a config problem (exit 2).
      if (e.code === 'EADDRINUSE' || e.code === 'EACCES')
        reject(
          new ConfigError(
            `${host}:${port} is ${e.code === 'EADDRINUSE' ? 'already in use (another capibot run on this config? see `capibot status`)' : 'not allowed for this user'}; ` +
              'choose another port, or 0 for any free one',
            'metrics.port',
          ),
        );
      else reject(e);
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

async function handle(req: IncomingMessage, res: ServerResponse, opts: ObsServerOptions): Promise<void> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    send(res, 405, JSON_TYPE, JSON.stringify({ error: 'method not allowed' }));
    return;
  }
  switch (path) {
    case '/health':
      send(res, 200, JSON_TYPE, JSON.stringify({ status: 'alive' }));
      return;
    case '/ready': {
      const r = await readinessOf(opts.readiness);
      send(res, r.status, JSON_TYPE, JSON.stringify(r.body));
      return;
    }
    case '/metrics':
      if (!opts.registry) break;
      send(res, 200, opts.registry.contentType, await opts.registry.metrics());
      return;
    default:
      break;
  }
  send(res, 404, JSON_TYPE, JSON.stringify({ error: 'not found', paths: ['/metrics', '/health', '/ready'] }));
}

interface ReadyAnswer {
  readonly status: 200 | 503;
  readonly body: Record<string, unknown>;
}

/** Maps the callback's answer to the HTTP answer; a failing callback means not ready. */
export async function readinessOf(check: ReadinessCheck): Promise<ReadyAnswer> {
  let r: Readiness;
  try {
    r = await check();
  } catch {
    return { status: 503, body: { ready: false, reason: 'readiness check failed' } };
  }
  if (r.reconciled && r.fresh) return { status: 200, body: { ready: true } };
  const reasons = [
    !r.reconciled ? 'not reconciled' : undefined,
    !r.fresh ? 'polling stale' : undefined,
  ].filter((x): x is string => x !== undefined);
  return {
    status: 503,
    body: {
      ready: false,
      reason: reasons.join(', '),
      reconciled: r.reconciled,
      fresh: r.fresh,
      ...(r.detail !== undefined ? { detail: r.detail } : {}),
    },
  };
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(res.req.method === 'HEAD' ? undefined : body);
}
