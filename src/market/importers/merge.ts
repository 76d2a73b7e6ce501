// Merges several single-source recordings (e.g. one import per symbol on the same grid) into one
// stream of polls: polls with the same `t` become one poll holding the tickers of each source, in
// source order. Streaming: one pending poll per source.
import type { RecordedPoll } from '../../core/market.ts';

export interface MergePollsOptions {
  /** Keep only the times present in every source (a common grid). Default false: a union. */
  readonly onlyCommonTimes?: boolean;
}

export async function* mergePolls(
  sources: readonly AsyncIterable<RecordedPoll>[],
  opts: MergePollsOptions = {},
): AsyncGenerator<RecordedPoll, void, undefined> {
  const its = sources.map((s) => s[Symbol.asyncIterator]());
  const pull = async (it: AsyncIterator<RecordedPoll>): Promise<RecordedPoll | undefined> => {
    const r = await it.next();
    return r.done === true ? undefined : r.value;
  };
  const heads: (RecordedPoll | undefined)[] = await Promise.all(its.map(pull));
  try {
    for (;;) {
      let t = Number.POSITIVE_INFINITY;
      for (const h of heads) if (h !== undefined && h.t < t) t = h.t;
      if (t === Number.POSITIVE_INFINITY) return;
      const tickers: RecordedPoll['tickers'][number][] = [];
      let present = 0;
      for (let i = 0; i < its.length; i++) {
        if (heads[i]?.t !== t) continue;
        present++;
        // Several polls of one source at the same t are all taken.
        while (heads[i]?.t === t) {
          tickers.push(...(heads[i] as RecordedPoll).tickers);
          heads[i] = await pull(its[i] as AsyncIterator<RecordedPoll>);
        }
      }
      if (!opts.onlyCommonTimes || present === its.length) yield { t, tickers };
    }
  } finally {
    await Promise.all(its.map((it) => (it.return ? it.return() : Promise.resolve(undefined))));
  }
}
