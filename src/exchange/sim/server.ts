// The capi/v2 HTTP front door of the simulator (node:http, loopback by default, port 0 allowed).
//
// One request: route (unknown path → 404 with a Spring-style body) → faults rolled → latency →
// reset before processing → injected 429 / 5xx → authentication (signed endpoints) → weight windows
// (429) → market sync (clock mode) → the operation → injected 5xx after processing or a lost
// response (the socket is reset AFTER the operation took effect) → the reply: a bare JSON body, or
// the envelope {"code","msg","requestTime","data":null} with HTTP 400 (403 for 40022, 429 for 429).
// Processing is serialised, so the core sees requests one at a time in arrival order.
//
// Inspection API (no auth, loopback peers only): GET /sim/v1/orders, /sim/v1/fills, /sim/v1/plans,
// /sim/v1/positions, /sim/v1/stats.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.ts';
import { ENDPOINT_BY_PATH, type Endpoint } from '../../core/endpoints.ts';
import { parseLosslessJson } from '../weex/lossless-json.ts';
import type { Credentials } from '../weex/signer.ts';
import { authenticate } from './auth.ts';
import type { RequestFaults } from './faults.ts';
import { toJsonText } from './json-text.ts';
import type { MarketDriver } from './market-clock.ts';
import { queryParams } from './params.ts';
import { httpStatusOf, REJECT, type VenueReject } from './venue-errors.ts';
import type { SimVenue } from './venue.ts';
import { errorEnvelope } from './wire.ts';

export interface SimServerOptions {
  readonly venue: SimVenue;
  readonly market: MarketDriver;
  readonly credentials: Credentials;
  /** Server time: the ±30 s timestamp window, market/time, requestTime, weight windows. Default wall. */
  readonly serverClock?: Clock;
  readonly timestampToleranceMs?: number;
  readonly logger?: Logger;
  /** Waits for injected latency; default setTimeout. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly maxBodyBytes?: number;
}

const wallClock: Clock = { now: () => Date.now() };
const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        reject(new BodyTooLarge());
        req.resume();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, text: string, contentType = 'application/json'): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Resets the connection (TCP RST where the platform allows): the client gets no reply at all. */
function resetConnection(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket) return;
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}

const REASONS: Readonly<Record<number, string>> = {
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
  500: 'Internal Server Error',
};

export class SimServer {
  readonly venue: SimVenue;
  readonly market: MarketDriver;
  readonly #creds: Credentials;
  readonly #clock: Clock;
  readonly #tolerance: number | undefined;
  readonly #log: Logger | undefined;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #maxBody: number;
  readonly #server: Server;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(opts: SimServerOptions) {
    this.venue = opts.venue;
    this.market = opts.market;
    this.#creds = opts.credentials;
    this.#clock = opts.serverClock ?? wallClock;
    this.#tolerance = opts.timestampToleranceMs;
    this.#log = opts.logger;
    this.#sleep = opts.sleep ?? defaultSleep;
    this.#maxBody = opts.maxBodyBytes ?? 1024 * 1024;
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((err: unknown) => {
        this.#log?.error({ err }, 'sim: request failed');
        this.#springError(res, 500, req.url ?? '/');
      });
    });
    this.#server.keepAliveTimeout = 5000;
  }

  /** Listens; resolves with the address (`port` 0 picks a free port). */
  listen(port: number, host = '127.0.0.1'): Promise<{ url: string; port: number; host: string }> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        const a = this.#server.address() as AddressInfo;
        const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
        resolve({ url: `http://${h}:${a.port}`, port: a.port, host: a.address });
      });
    });
  }

  /** Stops accepting, drops idle and active connections, closes the market source. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
    await this.market.close();
  }

  /** Runs `fn` after every request processed before it (arrival order). */
  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawUrl = req.url ?? '/';
    const q = rawUrl.indexOf('?');
    const path = q < 0 ? rawUrl : rawUrl.slice(0, q);
    const query = q < 0 ? '' : rawUrl.slice(q + 1);
    let body: Buffer;
    try {
      body = await readBody(req, this.#maxBody);
    } catch (e) {
      if (e instanceof BodyTooLarge) return this.#springError(res, 413, path);
      throw e;
    }
    if (path.startsWith('/sim/v1/')) return this.#inspect(req, res, path);
    const endpoint = ENDPOINT_BY_PATH.get(path);
    if (!endpoint) {
      this.venue.stats.unknownPath();
      return this.#springError(res, 404, path);
    }
    if (req.method !== endpoint.method) {
      this.venue.stats.unknownPath();
      return this.#springError(res, 405, path);
    }
    const rf = this.venue.begin(endpoint.id);
    if (rf.latencyMs > 0) {
      this.venue.faults.count('latency');
      await this.#sleep(rf.latencyMs);
    }
    if (rf.resetBeforeProcessing) {
      this.venue.faults.count('resetBeforeProcessing');
      this.#log?.debug({ endpoint: endpoint.id }, 'sim: fault resetBeforeProcessing');
      return resetConnection(res);
    }
    await this.#serial(() => this.#process(req, res, endpoint, path, query, body.toString('utf8'), rf));
  }

  async #process(
    req: IncomingMessage,
    res: ServerResponse,
    endpoint: Endpoint,
    path: string,
    query: string,
    bodyText: string,
    rf: RequestFaults,
  ): Promise<void> {
    const venue = this.venue;
    const serverNow = this.#clock.now();
    if (rf.rateLimited) {
      venue.faults.count('rateLimited');
      return this.#envelope(res, REJECT.tooMany);
    }
    if (rf.serverError && !rf.serverError.afterProcessing) {
      venue.faults.count('serverError');
      return this.#serverError(res, rf.serverError.status, path);
    }
    if (endpoint.signed) {
      const method = endpoint.method;
      const reject = authenticate(
        { method, path, query, body: bodyText, headers: req.headers },
        this.#creds,
        serverNow,
        this.#tolerance,
      );
      if (reject) return this.#envelope(res, reject);
    }
    const admitted = venue.admit(serverNow, endpoint, req.socket.remoteAddress ?? 'unknown', endpoint.signed);
    if (!admitted.ok) return this.#envelope(res, admitted.reject);

    let body: unknown;
    if (endpoint.method === 'POST') {
      try {
        body = parseLosslessJson(bodyText);
      } catch {
        return this.#envelope(res, REJECT.validation('the body is not valid JSON'));
      }
    }
    await this.market.sync();
    if (endpoint.id === 'tickers') await this.market.onTickers();
    const reply = venue.dispatch(endpoint.id, queryParams(query), body, rf, serverNow);

    if (rf.serverError?.afterProcessing) {
      venue.faults.count('serverError');
      return this.#serverError(res, rf.serverError.status, path);
    }
    if (rf.responseLost) {
      venue.faults.count('responseLost');
      this.#log?.debug(
        { endpoint: endpoint.id },
        'sim: fault responseLost (request applied, connection reset)',
      );
      return resetConnection(res);
    }
    if (!reply.ok) return this.#envelope(res, reply.reject);
    send(res, 200, toJsonText(reply.body));
  }

  async #inspect(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (!LOOPBACK.has(req.socket.remoteAddress ?? '')) return this.#springError(res, 403, path);
    if (req.method !== 'GET') return this.#springError(res, 405, path);
    await this.#serial(async () => {
      await this.market.sync();
      const v = this.venue;
      switch (path) {
        case '/sim/v1/orders':
          return send(res, 200, toJsonText(v.inspectOrders()));
        case '/sim/v1/fills':
          return send(res, 200, toJsonText(v.inspectFills()));
        case '/sim/v1/plans':
          return send(res, 200, toJsonText(v.inspectPlans()));
        case '/sim/v1/positions':
          return send(res, 200, toJsonText(v.inspectPositions()));
        case '/sim/v1/stats':
          return send(res, 200, toJsonText({ ...v.statsSnapshot(), market: this.market.state() }));
        default:
          return this.#springError(res, 404, path);
      }
    });
  }

  #envelope(res: ServerResponse, r: VenueReject): void {
    this.venue.stats.error(r.code);
    send(res, httpStatusOf(r.code), toJsonText(errorEnvelope(r, this.#clock.now())));
  }

  /** Spring Boot's default error body, as the venue's edge sends for unknown paths. */
  #springError(res: ServerResponse, status: number, path: string): void {
    const body = {
      timestamp: new Date(this.#clock.now()).toISOString(),
      status,
      error: REASONS[status] ?? 'Error',
      path,
    };
    send(res, status, toJsonText(body));
  }

  /** 500: a Spring error body; 502/503/504 and others: a gateway's HTML page (not JSON). */
  #serverError(res: ServerResponse, status: number, path: string): void {
    this.venue.stats.error(String(status));
    if (status === 500) return this.#springError(res, 500, path);
    const text = `<html><head><title>${status}</title></head><body><center><h1>${status}</h1></center><hr><center>gateway</center></body></html>`;
    send(res, status, text, 'text/html');
  }
}
