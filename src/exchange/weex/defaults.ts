// The HTTP client's defaults, in a module of their own: the config schema and the CLI's option
// definitions (their --help) name them without loading the transport (undici).

/** The real exchange's REST host for contracts (weex-facts.md §1). */
export const DEFAULT_BASE_URL = 'https://api-contract.weex.com';

export interface TransportTimeouts {
  /** TCP/TLS connect. */
  readonly connectMs: number;
  /** From the request being sent to the response headers. */
  readonly headersMs: number;
  /** Maximum idle time between two chunks of the response body. */
  readonly bodyMs: number;
  /**
   * Whole-request deadline, from sending to the last byte of the reply. Without it a server that
   * drips one byte under `bodyMs` would keep a request (and a placement's outcome) pending forever.
   */
  readonly totalMs: number;
}

export const DEFAULT_TIMEOUTS: TransportTimeouts = {
  connectMs: 5_000,
  headersMs: 10_000,
  bodyMs: 10_000,
  totalMs: 20_000,
};
