// Interpretation of one HTTP reply of capi/v2: status, content type and body text in, the JSON
// payload or one classified error out. Pure (no I/O), so every branch is unit-testable.
//
//   429 or envelope code "429"        → RateLimitedError
//   5xx, 1xx/3xx                      → OutcomeUnknownError (the request may have been acted on)
//   2xx not JSON / unparsable         → OutcomeUnknownError (HTML page, truncated body, wrong type)
//   error envelope {code,msg,…}       → ExchangeError, classified through ./venue-errors.ts
//   4xx with a Spring body or no body → ExchangeError (HTTP_<status>, category from the status)
//   2xx success wrapper {code:"00000",data} → its `data`; any other 2xx JSON → itself
import { ExchangeError, OutcomeUnknownError, RateLimitedError } from '../../core/errors.ts';
import type { EndpointId } from '../../core/endpoints.ts';
import { parseLosslessJson } from './lossless-json.ts';
import { errorEnvelopeSchema } from './schemas.ts';
import { RATE_LIMIT_CODE, categoryForHttpStatus, classifyVenueCode } from './venue-errors.ts';

export interface RawReply {
  readonly status: number;
  /** The Content-Type header, if any. */
  readonly contentType: string | undefined;
  /** The Retry-After header, if any. */
  readonly retryAfter: string | undefined;
  readonly text: string;
}

export interface ReplyOptions {
  /** Back-off suggested by a 429 that carries no Retry-After (v2 documents none). */
  readonly defaultRetryAfterMs: number;
  /** Scrubs venue messages before they go into an error (credentials echoed back, if ever). */
  readonly redact?: (text: string) => string;
}

/** Codes of the Bitget-style success wrapper some endpoints use (weex-facts.md §4.1). */
const SUCCESS_CODES: ReadonlySet<string> = new Set(['00000', '0', '200']);
const MAX_MESSAGE_CHARS = 300;

export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const media = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return media === 'application/json' || /^application\/[a-z0-9.+-]*\+json$/.test(media);
}

/** One line, bounded, scrubbed: safe to put into an error message shown on a terminal. */
export function cleanMessage(text: string, redact?: (t: string) => string): string {
  const scrubbed = redact ? redact(text) : text;
  const oneLine = scrubbed.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_MESSAGE_CHARS ? `${oneLine.slice(0, MAX_MESSAGE_CHARS)}…` : oneLine;
}

export function retryAfterMs(header: string | undefined, fallbackMs: number): number {
  if (header === undefined) return fallbackMs;
  const seconds = Number(header.trim());
  return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : fallbackMs;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: parseLosslessJson(text) };
  } catch {
    return { ok: false };
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

interface Envelope {
  readonly code: string;
  readonly msg: string;
  readonly hasData: boolean;
  readonly data: unknown;
}

/** `{code, msg, …}` (error envelope or success wrapper); undefined for any other shape. */
function asEnvelope(v: unknown): Envelope | undefined {
  if (!isPlainObject(v) || !('code' in v) || !('msg' in v)) return undefined;
  const parsed = errorEnvelopeSchema.safeParse(v);
  if (!parsed.success) return undefined;
  return { code: parsed.data.code, msg: parsed.data.msg, hasData: 'data' in v, data: v['data'] };
}

/** Spring Boot's default error body: `{"timestamp":…,"status":404,"error":"Not Found","path":…}`. */
function springErrorText(v: unknown): string | undefined {
  if (!isPlainObject(v) || typeof v['status'] !== 'number' || typeof v['error'] !== 'string')
    return undefined;
  const path = typeof v['path'] === 'string' ? ` ${v['path']}` : '';
  return `${v['error']}${path}`;
}

function envelopeError(env: Envelope, status: number, endpoint: EndpointId, opts: ReplyOptions): Error {
  const msg = cleanMessage(env.msg, opts.redact);
  if (env.code === RATE_LIMIT_CODE) {
    return new RateLimitedError(`rate limited on ${endpoint}: ${msg}`, endpoint, opts.defaultRetryAfterMs);
  }
  const { category, retry } = classifyVenueCode(env.code);
  return new ExchangeError(env.code, msg, status, category, endpoint, retry);
}

/** Returns the JSON payload of a successful reply, or throws the classified error. */
export function interpretReply(endpoint: EndpointId, reply: RawReply, opts: ReplyOptions): unknown {
  const { status } = reply;
  if (status === 429) {
    const ms = retryAfterMs(reply.retryAfter, opts.defaultRetryAfterMs);
    throw new RateLimitedError(`rate limited on ${endpoint} (HTTP 429)`, endpoint, ms);
  }
  if (status >= 500) {
    throw new OutcomeUnknownError(`HTTP ${status} from ${endpoint}: outcome unknown`, endpoint, status);
  }
  if (status < 200 || (status >= 300 && status < 400)) {
    throw new OutcomeUnknownError(`unexpected HTTP ${status} from ${endpoint}`, endpoint, status);
  }
  const parsed = tryParse(reply.text);

  if (status < 300) {
    if (!isJsonContentType(reply.contentType)) {
      throw new OutcomeUnknownError(
        `HTTP ${status} from ${endpoint} with content type ${reply.contentType ?? '(none)'}, not JSON: outcome unknown`,
        endpoint,
        status,
      );
    }
    if (!parsed.ok) {
      throw new OutcomeUnknownError(
        `unparsable or truncated JSON from ${endpoint}: outcome unknown`,
        endpoint,
        status,
      );
    }
    const env = asEnvelope(parsed.value);
    if (env === undefined) return parsed.value;
    if (SUCCESS_CODES.has(env.code)) return env.hasData ? env.data : parsed.value;
    throw envelopeError(env, status, endpoint, opts);
  }

  // 4xx: the exchange (or its edge) refused the request.
  if (parsed.ok) {
    const env = asEnvelope(parsed.value);
    if (env !== undefined && !SUCCESS_CODES.has(env.code)) throw envelopeError(env, status, endpoint, opts);
    const spring = springErrorText(parsed.value);
    if (spring !== undefined) {
      throw new ExchangeError(
        `HTTP_${status}`,
        cleanMessage(spring, opts.redact),
        status,
        categoryForHttpStatus(status),
        endpoint,
      );
    }
  }
  throw new ExchangeError(
    `HTTP_${status}`,
    `HTTP ${status} without an error envelope`,
    status,
    categoryForHttpStatus(status),
    endpoint,
  );
}
