// The table of BENCHMARKS.md: every figure of bench/results.json beside its target, with a verdict.
// It lives between two markers; the prose around them is written by hand and left alone.
import { differenceFailed, FIGURES, meets, valueOf, type BenchResults, type Target } from './results.ts';

/** The verdict of a figure whose cost, measured as a difference, came out at zero or less. */
export const NOT_JUDGED =
  '— (not judged: a cost measured as one CPU time less another came out ≤ 0, the part taken away measured slower than the whole; run again)';

export const BEGIN_MARKER = '<!-- bench:begin -->';
export const END_MARKER = '<!-- bench:end -->';

function targetText(t: Target | undefined, unit: string | undefined, note: string | undefined): string {
  if (t === undefined) return '—';
  const op = t.op === '>=' ? '≥' : t.op === '<=' ? '≤' : '=';
  const u = unit !== undefined ? ` ${unit}` : '';
  return `${op} ${t.value}${u}${note !== undefined ? ` (${note})` : ''}`;
}

function valueText(v: number, unit: string | undefined): string {
  // Rates as whole numbers; ratios and milliseconds to three decimals (results.json keeps them all).
  const text =
    Math.abs(v) >= 1000 ? Math.round(v).toLocaleString('en-US') : String(Math.round(v * 1000) / 1000);
  return unit !== undefined ? `${text} ${unit}` : text;
}

/** The Markdown table and the line naming the machine, without the markers. */
export function renderTable(r: BenchResults): string {
  const rows = ['| Figure | Measured | Target | Result |', '|---|---:|---|---|'];
  for (const f of FIGURES) {
    const v = valueOf(r, f);
    const measured = v === undefined ? 'not measured' : valueText(v, f.unit);
    const verdict =
      v === undefined
        ? `— (${r.errors[f.section] ?? 'no result'})`
        : f.target === undefined
          ? '—'
          : differenceFailed(r, f)
            ? NOT_JUDGED
            : meets(v, f.target)
              ? 'pass'
              : '**FAIL**';
    rows.push(
      `| ${f.label} | ${measured} | ${targetText(f.target, f.unit, f.note)} | ${verdict.replace(/\|/g, '\\|')} |`,
    );
  }
  const m = r.machine;
  const machine =
    `Measured ${r.date.slice(0, 10)} by \`npm run bench\` on ${m.cpu} (${m.cores} cores, ${m.memoryGb} GB), ` +
    `Node ${m.node}, ${m.os}; 1-minute load average ${m.loadAverage1m} at the start. ` +
    'Every figure with its detail: `bench/results.json`, written by the run (generated, not committed).';
  return `${rows.join('\n')}\n\n${machine}`;
}

/** Replaces what lies between the markers; throws when they are missing or out of order. */
export function replaceBetweenMarkers(doc: string, content: string): string {
  const b = doc.indexOf(BEGIN_MARKER);
  const e = doc.indexOf(END_MARKER);
  if (b < 0 || e < 0 || e < b)
    throw new Error(`BENCHMARKS.md must hold ${BEGIN_MARKER} … ${END_MARKER}, in that order`);
  return `${doc.slice(0, b + BEGIN_MARKER.length)}\n${content}\n${doc.slice(e)}`;
}
