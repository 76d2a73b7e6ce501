// Runs the reader benchmark alone: node bin/run-ts.js bench/reader-run.ts [REC]
import { benchReader } from './reader.ts';

const path = process.argv[2] ?? 'data/ftx-btc-perp-202201-1m.ndjson.gz';
const r = await benchReader(path);
console.log(
  `reader ${path}: ${Math.round(r.readerLinesPerSecond)} lines/s, bare JSON.parse ${Math.round(r.bareLinesPerSecond)} lines/s, ` +
    `ratio ${r.ratioToBareParse.toFixed(3)} (batch API ${r.batchRatioToBareParse.toFixed(3)}; ${r.lines} lines, best of ${r.runs}, CPU time)`,
);
