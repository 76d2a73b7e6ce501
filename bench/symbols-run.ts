// Runs the many-symbols benchmark alone and prints its JSON (see bench/symbols.ts):
//   node bin/run-ts.js bench/symbols-run.ts [--quick] [--runs N]
import { parseArgs } from 'node:util';
import { benchSymbols, QUICK_SYMBOLS } from './symbols.ts';

const { values } = parseArgs({
  options: { quick: { type: 'boolean', default: false }, runs: { type: 'string' } },
});
const result = await benchSymbols({
  ...(values.quick === true ? QUICK_SYMBOLS : {}),
  ...(values.runs !== undefined ? { runs: Number(values.runs) } : {}),
});
console.log(JSON.stringify(result, null, 2));
