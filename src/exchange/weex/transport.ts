// HTTP transport for capi/v2 on undici: one keep-alive Pool per origin, connect/headers/body
// timeouts, caller abort, and a cap on the response size. It sends exactly the path, query and body
// text it is given (the text that was signed) and turns every failure into one error of
// core/errors.ts:
//   before anything was sent (connect refused, DNS, connect timeout, TLS) → TransportError
//   after sending (timeouts, reset, abort, truncated/oversized body)       → OutcomeUnknownError
//   the reply itself                                                       → ./reply.ts
import type { Logger } from 'pino';
import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import type { Endpoint } from '../../core/endpoints.ts';
import { ConfigError, OutcomeUnknownError, TransportError, isCapibotError } from '../../core/errors.ts';
import { interpretReply } from './reply.ts';
import { DEFAULT_TIMEOUTS, type TransportTimeouts } from './defaults.ts';

export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

export type ResponseHook = (endpoint: Endpoint, status: number | 'error', ms: number) => void;

export interface TransportOptions {
  /** Origin only (scheme, host, port): the signed path is the path sent. */
  readonly baseUrl: string;
  readonly timeouts?: Partial<TransportTimeouts>;
  readonly maxResponseBytes?: number;
  /** Sockets kept per origin. */
  readonly connections?: number;
  readonly keepAliveTimeoutMs?: number;
  /** Back-off reported for a 429 without Retry-After. */
  readonly defaultRetryAfterMs?: number;
  readonly logger?: Logger;
  readonly onResponse?: ResponseHook;
  /** Scrubs venue messages (the client passes one that removes its credentials). */
  readonly redact?: (text: string) => string;
}

export interface TransportRequest {
  readonly endpoint: Endpoint;
  /** Raw query text without `?`, exactly as signed; '' for none. */
  readonly query: string;
  /** Raw body text exactly as signed; '' for none. */
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** Error codes that prove the request never left this process (nothing reached the exchange). */
const PRE_SEND_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_INVALID_ARG',
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

function errorCodes(err: unknown): string[] {
  if (typeof err !== 'object' || err === null) return [];
  const codes: string[] = [];
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') codes.push(code);
  const cause = (err as { cause?: unknown }).cause;
  if (cause !== undefined && cause !== err) codes.push(...errorCodes(cause));
  const inner = (err as { errors?: unknown }).errors;
  if (Array.isArray(inner)) for (const e of inner) codes.push(...errorCodes(e));
  return codes;
}

/**
 * Classifies a failure of the request phase. Only codes that prove nothing was sent give a
 * TransportError; anything else (timeouts after sending, resets, aborts, the unforeseen) is an
 * OutcomeUnknownError, because a placement must never be resent on a guess.
 */
export function classifyNetworkError(err: unknown, endpoint: string): Error {
  if (isCapibotError(err)) return err;
  const codes = errorCodes(err);
  const code = codes[0] ?? (err instanceof Error ? err.name : 'unknown');
  if (codes.length > 0 && codes.every((c) => PRE_SEND_CODES.has(c))) {
    return new TransportError(`${endpoint}: request not sent (${code})`, endpoint);
  }
  if (codes.includes('UND_ERR_HEADERS_TIMEOUT') || codes.includes('UND_ERR_BODY_TIMEOUT')) {
    return new OutcomeUnknownError(
      `${endpoint}: timed out waiting for the reply (${code}): outcome unknown`,
      endpoint,
    );
  }
  return new OutcomeUnknownError(
    `${endpoint}: connection failed after sending (${code}): outcome unknown`,
    endpoint,
  );
}

function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Validates a base URL: http(s), origin only. */
export function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ConfigError(`not a URL: ${JSON.stringify(baseUrl)}`, 'base-url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`base URL must be http(s), got ${url.protocol}`, 'base-url');
  }
  if (
    (url.pathname !== '/' && url.pathname !== '') ||
    url.search !== '' ||
    url.hash !== '' ||
    url.username !== ''
  ) {
    throw new ConfigError(
      'base URL must be an origin only (scheme://host[:port]) without path or query',
      'base-url',
    );
  }
  return url;
}

export class HttpTransport {
  readonly origin: string;
  readonly #pool: Pool;
  readonly #maxBytes: number;
  readonly #totalMs: number;
  readonly #defaultRetryAfterMs: number;
  readonly #logger: Logger | undefined;
  readonly #onResponse: ResponseHook | undefined;
  readonly #redact: ((text: string) => string) | undefined;

  constructor(opts: TransportOptions) {
    this.origin = parseBaseUrl(opts.baseUrl).origin;
    const t = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
    this.#maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    // Unless given, the deadline is the sum of the two phases' limits.
    this.#totalMs = opts.timeouts?.totalMs ?? t.headersMs + t.bodyMs;
    this.#defaultRetryAfterMs = opts.defaultRetryAfterMs ?? 1_000;
    this.#logger = opts.logger;
    this.#onResponse = opts.onResponse;
    this.#redact = opts.redact;
    this.#pool = new Pool(this.origin, {
      connections: opts.connections ?? 8,
      pipelining: 1,
      connect: { timeout: t.connectMs },
      headersTimeout: t.headersMs,
      bodyTimeout: t.bodyMs,
      keepAliveTimeout: opts.keepAliveTimeoutMs ?? 4_000,
    });
  }

  /** Sends one request; resolves with the reply's JSON payload or rejects with a classified error. */
  async send(req: TransportRequest): Promise<unknown> {
    const { endpoint } = req;
    const id = endpoint.id;
    if (req.signal?.aborted) throw new TransportError(`${id}: aborted before sending`, id);
    const path = req.query === '' ? endpoint.path : `${endpoint.path}?${req.query}`;
    const started = performance.now();
    const deadline = AbortSignal.timeout(this.#totalMs);
    const signal = req.signal !== undefined ? AbortSignal.any([req.signal, deadline]) : deadline;

    let res: Dispatcher.ResponseData;
    try {
      res = await this.#pool.request({
        method: endpoint.method,
        path,
        headers: req.headers,
        ...(endpoint.method === 'POST' ? { body: req.body } : {}),
        signal,
      });
    } catch (err) {
      this.#report(endpoint, 'error', started);
      if (deadline.aborted) throw this.#deadlineError(id);
      throw classifyNetworkError(err, id);
    }

    let text: string;
    try {
      text = await this.#readBounded(res, id);
    } catch (err) {
      this.#report(endpoint, res.statusCode, started);
      if (isCapibotError(err)) throw err;
      if (deadline.aborted) throw this.#deadlineError(id, res.statusCode);
      // Headers arrived, so the request was sent: any body failure leaves the outcome unknown.
      const c = classifyNetworkError(err, id);
      throw c instanceof TransportError
        ? new OutcomeUnknownError(`${id}: reply body failed: outcome unknown`, id, res.statusCode)
        : c;
    }
    this.#report(endpoint, res.statusCode, started);
    return interpretReply(
      id,
      {
        status: res.statusCode,
        contentType: headerText(res.headers['content-type']),
        retryAfter: headerText(res.headers['retry-after']),
        text,
      },
      {
        defaultRetryAfterMs: this.#defaultRetryAfterMs,
        ...(this.#redact !== undefined ? { redact: this.#redact } : {}),
      },
    );
  }

  /** The deadline may fire before or after the bytes left: a placement's outcome is unknown either way. */
  #deadlineError(id: string, status?: number): OutcomeUnknownError {
    return new OutcomeUnknownError(
      `${id}: no complete reply within ${this.#totalMs} ms: outcome unknown`,
      id,
      status,
    );
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  /** Reads the body up to the cap; past it, stops reading, drops the connection and fails. */
  async #readBounded(res: Dispatcher.ResponseData, id: string): Promise<string> {
    const declared = Number(headerText(res.headers['content-length']) ?? Number.NaN);
    if (Number.isFinite(declared) && declared > this.#maxBytes) {
      res.body.destroy();
      throw new OutcomeUnknownError(
        `${id}: reply of ${declared} bytes exceeds the ${this.#maxBytes}-byte cap: outcome unknown`,
        id,
        res.statusCode,
      );
    }
    const chunks: Buffer[] = [];
    let total = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > this.#maxBytes) {
        res.body.destroy();
        throw new OutcomeUnknownError(
          `${id}: reply exceeds the ${this.#maxBytes}-byte cap: outcome unknown`,
          id,
          res.statusCode,
        );
      }
      chunks.push(chunk);
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    } catch {
      throw new OutcomeUnknownError(`${id}: reply is not valid UTF-8: outcome unknown`, id, res.statusCode);
    }
  }

  #report(endpoint: Endpoint, status: number | 'error', started: number): void {
    const ms = performance.now() - started;
    this.#logger?.debug({ endpoint: endpoint.id, status, ms: Math.round(ms) }, 'capi/v2 reply');
    try {
      this.#onResponse?.(endpoint, status, ms);
    } catch (err) {
      // A metrics hook must never change the outcome of a request.
      this.#logger?.warn(
        { endpoint: endpoint.id, err: err instanceof Error ? err.message : String(err) },
        'onResponse hook threw',
      );
    }
  }
}
