// The web console's HTTP server (node:http; no framework). Every request, whatever its path, first
// passes the brute-force brake (429) and the token check (401); then:
//   GET  /                     the page            GET /static/*    its script, style, chart library
//   GET  /api/session          {role, mode}        GET /api/snapshot  the snapshot (src/console/types.ts)
//   GET  /api/events           Server-Sent Events: `snapshot` at once, then after every change
//   POST /api/control          pause / resume / kill (control token + CSRF checks, JSON ≤ 4 KiB)
// Anything else: 404 (405 for other methods). Answers carry no secret: the token is only compared,
// never echoed, logged or put in a page. A failing handler answers 500 and never reaches the runner.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ConfigError } from '../core/errors.ts';
import { FailureLimit, type FailureLimitOptions } from './auth-limit.ts';
import { presentedToken, TokenCheck, type ConsoleTokens } from './auth.ts';
import { readJsonBody } from './body.ts';
import { handleControl } from './control-routes.ts';
import { csrfProblem } from './csrf.ts';
import { CONSOLE_CSP } from './page-html.ts';
import { SseHub } from './sse.ts';
import { staticFile } from './static-files.ts';
import type { ConsoleRole, ConsoleSource } from './types.ts';

export interface ConsoleServerOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** 0 = any free port. */
  readonly port: number;
  readonly tokens: Pick<ConsoleTokens, 'control' | 'read'>;
  readonly allowedOrigins?: readonly string[];
  readonly source: ConsoleSource;
  readonly logger?: Logger;
  readonly failureLimit?: FailureLimitOptions;
  /** Changes are pushed at most this often (ms). Default 200. */
  readonly pushMs?: number;
}

export interface ConsoleServer {
  readonly host: string;
  readonly port: number;
  /** `http://host:port` */
  readonly url: string;
  /** Connected event streams. */
  readonly streams: () => number;
  close(): Promise<void>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

export async function startConsoleServer(o: ConsoleServerOptions): Promise<ConsoleServer> {
  const host = o.host ?? '127.0.0.1';
  const check = new TokenCheck(o.tokens);
  const limit = new FailureLimit(o.failureLimit);
  const hub = new SseHub();
  const log = o.logger;

  // Pushes are coalesced: one snapshot per `pushMs` at most, whatever the rate of changes.
  let pending: NodeJS.Timeout | undefined;
  const push = (): void => {
    pending = undefined;
    if (hub.size === 0) return;
    try {
      hub.broadcast('snapshot', JSON.stringify(o.source.snapshot()));
    } catch (e) {
      log?.error({ err: e }, 'console: snapshot failed');
    }
  };
  const unsubscribe = o.source.onChange(() => {
    if (pending === undefined && hub.size > 0) pending = setTimeout(push, o.pushMs ?? 200);
  });

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log?.error({ err: e, path: req.url?.slice(0, 200) }, 'console: request failed');
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
      else res.end();
    });
  });
  // Slow or stuck clients cannot hold sockets for long (the event stream is exempt: it has no timeout
  // once its headers are sent).
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  server.keepAliveTimeout = 5_000;
  server.maxHeadersCount = 64;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    setCommonHeaders(res);
    const peer = req.socket.remoteAddress ?? 'unknown';
    const wait = limit.blockedForMs(peer);
    if (wait > 0) {
      res.setHeader('Retry-After', String(Math.ceil(wait / 1000)));
      send(res, 429, { error: 'too many wrong tokens: try again later' });
      return;
    }
    const token = presentedToken(req);
    const role = token !== undefined ? check.roleOf(token) : undefined;
    if (role === undefined) {
      if (token !== undefined) {
        limit.fail(peer);
        log?.warn({ peer }, 'console: wrong token');
      }
      res.setHeader('WWW-Authenticate', 'Basic realm="capibot console", charset="UTF-8"');
      send(res, 401, { error: 'a console token is required' });
      return;
    }
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://console').pathname;
    } catch {
      send(res, 400, { error: 'bad request target' });
      return;
    }
    if (path === '/api/control') {
      if (req.method !== 'POST') return methodNotAllowed(res, 'POST');
      return control(req, res, role);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return methodNotAllowed(res, 'GET, HEAD');
    switch (path) {
      case '/api/session':
        return send(res, 200, { role, mode: o.source.mode, strategies: o.source.strategyIds });
      case '/api/snapshot':
        return send(res, 200, o.source.snapshot());
      case '/api/events':
        // A HEAD has no body to stream: say what a GET would be, and end.
        if (req.method === 'HEAD') return send(res, 200, {});
        if (!hub.add(res, { event: 'snapshot', data: JSON.stringify(o.source.snapshot()) }))
          send(res, 503, { error: 'too many open event streams' });
        // The stream outlives the request timeout.
        req.socket.setTimeout(0);
        return;
      default: {
        const file = staticFile(path);
        if (file === undefined) return send(res, 404, { error: 'not found' });
        res.statusCode = 200;
        res.setHeader('Content-Type', file.type);
        res.setHeader('Content-Length', Buffer.byteLength(file.body));
        res.end(req.method === 'HEAD' ? undefined : file.body);
        return;
      }
    }
  }

  async function control(req: IncomingMessage, res: ServerResponse, role: ConsoleRole): Promise<void> {
    const refused = csrfProblem(req, o.allowedOrigins ?? []);
    if (refused !== undefined) {
      log?.warn(
        { peer: req.socket.remoteAddress, reason: refused },
        'console: control request refused (CSRF check)',
      );
      return send(res, 403, { error: `refused: ${refused}` });
    }
    const body = await readJsonBody(req);
    if (!body.ok) {
      res.setHeader('Connection', 'close');
      return send(res, body.status, { error: body.error });
    }
    const answer = handleControl(o.source, role, body.value);
    if (answer.status === 200)
      log?.warn({ peer: req.socket.remoteAddress, ...answer.body }, 'console: control action');
    send(res, answer.status, answer.body);
    push();
  }

  await listen(server, o.port, host);
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  log?.info({ host, port }, 'console listening');
  return {
    host,
    port,
    url: `http://${shownHost}:${port}`,
    streams: () => hub.size,
    close: () =>
      new Promise<void>((resolve, reject) => {
        unsubscribe();
        if (pending !== undefined) clearTimeout(pending);
        hub.close();
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function setCommonHeaders(res: ServerResponse): void {
  res.setHeader('Content-Security-Policy', CONSOLE_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
}

function methodNotAllowed(res: ServerResponse, allow: string): void {
  res.setHeader('Allow', allow);
  send(res, 405, { error: 'method not allowed' });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      if (e.code === 'EADDRINUSE' || e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL')
        reject(
          new ConfigError(
            `the console cannot listen on ${host}:${port} (${e.code}); choose another console.host/port, or 0 for any free port`,
            'console.port',
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
