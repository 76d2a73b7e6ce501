/** The only source of time for pure and engine code: wall time live, virtual time in backtests. */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
}
