// "did you mean" suggestions for misspelt keys and words.

/** Edit distance (insertions, deletions, substitutions, adjacent swaps). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      const row = d[i];
      if (row) row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The closest candidate when it is close enough to be a likely typo; case and `_`/`-` are ignored. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const norm = (s: string): string => s.toLowerCase().replace(/[_-]/g, '');
  const w = norm(word);
  let best: { name: string; distance: number } | undefined;
  for (const c of candidates) {
    const distance = editDistance(w, norm(c));
    if (best === undefined || distance < best.distance) best = { name: c, distance };
  }
  if (best === undefined) return undefined;
  const allowed = Math.max(2, Math.floor(Math.max(w.length, best.name.length) / 4));
  return best.distance <= allowed ? best.name : undefined;
}
