// Peak memory of an async operation, sampled while it runs (an upper-bound check, not a benchmark).

/** Samples the RSS every few ms while `run` goes on; resolves with the peak growth in bytes. */
export async function peakRssGrowth<T>(run: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const result = await run();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growth: peak - base };
  } finally {
    clearInterval(timer);
  }
}
