// Server time for ACCESS-TIMESTAMP. The exchange rejects a timestamp more than 30 s away from its
// own clock (40008), so capibot measures the offset from GET /capi/v2/market/time and signs with
// local time + offset. The offset is measured once before the first signed request (unless
// `initialSync` is false: then it starts at 0 and is only measured once a 40008 has shown the local
// clock is off), refreshed when older than `maxAgeMs`, and re-measured after a 40008.
import type { Clock } from '../../core/clock.ts';
import { BadResponseError, InvariantViolation } from '../../core/errors.ts';

/** 13-digit epoch ms: 2001-09-09 … 2286-11-20. Anything else is not a server time. */
const PLAUSIBLE_MIN = 1e12;
const PLAUSIBLE_MAX = 1e13;

export interface ServerClockOptions {
  /** Local time (wall clock live, virtual clock in tests). */
  readonly clock: Clock;
  /** Fetches the server's epoch ms (GET market/time). */
  readonly fetchServerTime: () => Promise<number>;
  /** Re-measure when the last measurement is older than this; default 10 minutes. */
  readonly maxAgeMs?: number;
  /** Measure before the first signed request (default true); false: only after a 40008. */
  readonly initialSync?: boolean;
}

export class ServerClock {
  readonly #clock: Clock;
  readonly #fetch: () => Promise<number>;
  readonly #maxAgeMs: number;
  #offsetMs = 0;
  #syncedAt: number | undefined;
  #pending: Promise<number> | undefined;
  #wanted: boolean;

  constructor(opts: ServerClockOptions) {
    this.#clock = opts.clock;
    this.#fetch = opts.fetchServerTime;
    this.#maxAgeMs = opts.maxAgeMs ?? 600_000;
    this.#wanted = opts.initialSync ?? true;
  }

  /** Server time minus local time, in ms (0 until synced). */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  get synced(): boolean {
    return this.#syncedAt !== undefined;
  }

  /**
   * Measures the offset: the server's time is taken to be the midpoint of the round trip.
   * Concurrent callers share one request. Resolves with the server time received.
   */
  sync(): Promise<number> {
    if (this.#pending) return this.#pending;
    const run = async (): Promise<number> => {
      const sent = this.#clock.now();
      const server = await this.#fetch();
      if (!Number.isSafeInteger(server) || server < PLAUSIBLE_MIN || server >= PLAUSIBLE_MAX) {
        // A reply such as {"timestamp":0} must not poison every later signature.
        throw new BadResponseError(
          `market/time: ${server} is not a 13-digit epoch-ms time`,
          'time',
          'timestamp',
        );
      }
      const received = this.#clock.now();
      this.#offsetMs = Math.round(server - (sent + received) / 2);
      this.#syncedAt = received;
      return server;
    };
    this.#pending = run().finally(() => {
      this.#pending = undefined;
    });
    return this.#pending;
  }

  /** Syncs when never synced or stale (once wanted: see `initialSync`). */
  async ensureSynced(): Promise<void> {
    if (!this.#wanted) return;
    const at = this.#syncedAt;
    if (at === undefined || this.#clock.now() - at > this.#maxAgeMs) await this.sync();
  }

  /** Forgets the measurement (after a 40008): the next ensureSynced() measures again. */
  invalidate(): void {
    this.#wanted = true;
    this.#syncedAt = undefined;
  }

  /** ACCESS-TIMESTAMP: 13-digit epoch ms of the server's clock. */
  timestamp(): string {
    const t = Math.round(this.#clock.now() + this.#offsetMs);
    const text = String(t);
    if (!/^\d{13}$/.test(text))
      throw new InvariantViolation(`server timestamp ${text} is not 13-digit epoch ms`);
    return text;
  }
}
