// Runs the replay benchmark alone and prints its JSON (see bench/replay.ts):
//   node bin/run-ts.js bench/replay-run.ts [RECORDING] [--max-polls N] [--no-memory]
import { parseArgs } from 'node:util';
import { benchReplay } from './replay.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { 'max-polls': { type: 'string' }, 'no-memory': { type: 'boolean', default: false } },
});
const result = await benchReplay(positionals[0] ?? 'data/ftx-btc-perp-202201-1m.ndjson.gz', {
  ...(values['max-polls'] !== undefined ? { maxPolls: Number(values['max-polls']) } : {}),
  memory: values['no-memory'] !== true,
});
console.log(JSON.stringify(result, null, 2));
