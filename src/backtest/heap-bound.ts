// A backtest is a batch job that allocates fast and keeps little. V8 sizes its old generation from the
// live data it found at its last full collection times a growth factor (up to 4× for a fast allocator)
// and collects lazily, so a long replay's resident memory drifts up with its length (a 4× longer month
// of minute bars peaked ~25 % higher) while its live data stays nearly flat. The replay therefore
// collects at its own pace: a full collection whenever the old generation holds `slackBytes` more than
// the last one left live. Peak memory then follows the live data, whatever the run's length.
//
// The collector is V8's own (`gc`, made reachable with --expose-gc set at run time); where it cannot be
// had, nothing is done and V8 keeps its own pace.
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Old-generation growth allowed between two collections. */
export const DEFAULT_HEAP_SLACK_BYTES = 16 * 1024 * 1024;

/** The heap spaces whose growth is counted (where long-lived objects are promoted to). */
const OLD_SPACES = new Set(['old_space', 'large_object_space', 'code_space']);

function oldGenerationBytes(): number {
  let n = 0;
  for (const s of getHeapSpaceStatistics()) if (OLD_SPACES.has(s.space_name)) n += s.space_used_size;
  return n;
}

function collector(): (() => void) | undefined {
  const own = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as () => void;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

export class HeapBound {
  readonly #gc: (() => void) | undefined;
  readonly #slack: number;
  #liveAfter: number;
  /** Full collections this bound ran. */
  collections = 0;

  constructor(slackBytes = DEFAULT_HEAP_SLACK_BYTES) {
    this.#gc = collector();
    this.#slack = slackBytes;
    this.#liveAfter = oldGenerationBytes();
  }

  /** Call between batches of work: collects when the old generation outgrew its slack. */
  check(): void {
    if (this.#gc === undefined || oldGenerationBytes() <= this.#liveAfter + this.#slack) return;
    this.#gc();
    this.collections++;
    this.#liveAfter = oldGenerationBytes();
  }
}
