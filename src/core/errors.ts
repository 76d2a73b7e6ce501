// The closed set of errors capibot raises. Each has a stable `code`, a `retry` semantic, and never
// carries credentials, headers or request options: only what a human needs to act.

/** How the caller may react. */
export type RetrySemantic =
  /** Nothing reached the exchange; safe to try again (with backoff). */
  | 'retryable'
  /** The request may have reached the exchange: never resend a placement; settle by reconciliation. */
  | 'reconcile'
  /** Wait (budget back-off) and then try again. */
  | 'after-backoff'
  /** Trying again cannot help. */
  | 'never';

export type ErrorCode =
  | 'TRANSPORT'
  | 'OUTCOME_UNKNOWN'
  | 'RATE_LIMITED'
  | 'EXCHANGE'
  | 'BAD_RESPONSE'
  | 'BAD_INPUT'
  | 'CONFIG'
  | 'STRATEGY'
  | 'STORE'
  | 'INVARIANT';

export abstract class CapibotError extends Error {
  abstract readonly code: ErrorCode;
  abstract readonly retry: RetrySemantic;
  /** Exit code for the CLI: 2 for bad usage/config/input given by the user, 1 otherwise. */
  get exitCode(): 1 | 2 {
    return 1;
  }
}

/** The request failed before anything was sent (connect refused, DNS, TLS). Safe to retry. */
export class TransportError extends CapibotError {
  readonly code = 'TRANSPORT';
  readonly retry = 'retryable';
  readonly endpoint: string;
  constructor(message: string, endpoint: string) {
    super(message);
    this.name = 'TransportError';
    this.endpoint = endpoint;
  }
}

/**
 * The request may have reached the exchange but no usable answer came back: timeout after sending,
 * connection reset, HTTP 5xx, an unparsable or truncated reply. A placement in this state is never
 * resent; its orders become `unknown` and are settled from fills and history by client_oid.
 */
export class OutcomeUnknownError extends CapibotError {
  readonly code = 'OUTCOME_UNKNOWN';
  readonly retry = 'reconcile';
  readonly endpoint: string;
  readonly httpStatus?: number | undefined;
  constructor(message: string, endpoint: string, httpStatus?: number) {
    super(message);
    this.name = 'OutcomeUnknownError';
    this.endpoint = endpoint;
    this.httpStatus = httpStatus;
  }
}

/** HTTP 429 / code "429": the weight budget was exceeded. */
export class RateLimitedError extends CapibotError {
  readonly code = 'RATE_LIMITED';
  readonly retry = 'after-backoff';
  readonly endpoint: string;
  readonly retryAfterMs: number;
  constructor(message: string, endpoint: string, retryAfterMs: number) {
    super(message);
    this.name = 'RateLimitedError';
    this.endpoint = endpoint;
    this.retryAfterMs = retryAfterMs;
  }
}

export type VenueErrorCategory = 'auth' | 'permission' | 'parameter' | 'business' | 'not_found' | 'unknown';

/** The exchange answered with its error envelope `{code,msg,requestTime,data:null}`. */
export class ExchangeError extends CapibotError {
  readonly code = 'EXCHANGE';
  readonly retry: RetrySemantic;
  readonly venueCode: string;
  readonly venueMessage: string;
  readonly httpStatus: number;
  readonly category: VenueErrorCategory;
  readonly endpoint: string;
  constructor(venueCode: string, venueMessage: string, httpStatus: number, category: VenueErrorCategory, endpoint: string, retry: RetrySemantic = 'never') {
    super(`exchange error ${venueCode} (${category}, HTTP ${httpStatus}) on ${endpoint}: ${venueMessage}`);
    this.name = 'ExchangeError';
    this.venueCode = venueCode;
    this.venueMessage = venueMessage;
    this.httpStatus = httpStatus;
    this.category = category;
    this.endpoint = endpoint;
    this.retry = retry;
  }
}

/** A reply (or recorded data) did not match the expected shape; `where` names the field. */
export class BadResponseError extends CapibotError {
  readonly code = 'BAD_RESPONSE';
  readonly retry = 'reconcile';
  readonly endpoint: string;
  readonly where: string;
  constructor(message: string, endpoint: string, where: string) {
    super(message);
    this.name = 'BadResponseError';
    this.endpoint = endpoint;
    this.where = where;
  }
}

/** Bad input given by the user: CLI arguments, a recording line, an orders file. */
export class BadInputError extends CapibotError {
  readonly code = 'BAD_INPUT';
  readonly retry = 'never';
  readonly where?: string | undefined;
  constructor(message: string, where?: string) {
    super(where ? `${where}: ${message}` : message);
    this.name = 'BadInputError';
    this.where = where;
  }
  override get exitCode(): 1 | 2 {
    return 2;
  }
}

/** A configuration problem; `path` is the YAML path (and line where known). */
export class ConfigError extends CapibotError {
  readonly code = 'CONFIG';
  readonly retry = 'never';
  readonly path?: string | undefined;
  constructor(message: string, path?: string) {
    super(path ? `${path}: ${message}` : message);
    this.name = 'ConfigError';
    this.path = path;
  }
  override get exitCode(): 1 | 2 {
    return 2;
  }
}

/** A strategy threw or emitted an invalid intent; the strategy is disabled, the runner goes on. */
export class StrategyError extends CapibotError {
  readonly code = 'STRATEGY';
  readonly retry = 'never';
  readonly strategy: string;
  constructor(message: string, strategy: string) {
    super(`strategy ${strategy}: ${message}`);
    this.name = 'StrategyError';
    this.strategy = strategy;
  }
}

/** The store is unusable (locked by another runner, corrupt, migration failed). */
export class StoreError extends CapibotError {
  readonly code = 'STORE';
  readonly retry = 'never';
  constructor(message: string) {
    super(message);
    this.name = 'StoreError';
  }
}

/** A bug: an invariant of ARCHITECTURE.md would be broken. Crash loudly. */
export class InvariantViolation extends CapibotError {
  readonly code = 'INVARIANT';
  readonly retry = 'never';
  constructor(message: string) {
    super(message);
    this.name = 'InvariantViolation';
  }
}

export function isCapibotError(e: unknown): e is CapibotError {
  return e instanceof CapibotError;
}
