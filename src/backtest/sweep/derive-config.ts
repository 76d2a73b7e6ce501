// The config of one sweep run: the original config file with one strategy's params set to the
// combination's values. Edited as a YAML document, so everything else stays exactly as written
// (comments, ${VAR} references, relative paths, which resolve against the working directory as
// before): `capibot backtest --config <derived file>` reproduces the run on its own.
import { isMap, isSeq, parseDocument } from 'yaml';
import { ConfigError } from '../../core/errors.ts';
import type { Combination } from './grid.ts';

/** Index of the strategy with `id` in the document's `strategies` list. */
function strategyIndex(items: readonly unknown[], id: string): number {
  return items.findIndex((item) => isMap(item) && item.get('id') === id);
}

/**
 * Returns the text of `configText` (file `source`) with `strategies[id].params` updated by `params`
 * (other params of that strategy stay), under a comment line `header`.
 */
export function deriveConfigText(
  configText: string,
  source: string,
  strategyId: string,
  params: Combination,
  header: string,
): string {
  const doc = parseDocument(configText);
  if (doc.errors.length > 0) throw new ConfigError(`not valid YAML: ${doc.errors[0]?.message ?? ''}`, source);
  const list = doc.get('strategies');
  if (!isSeq(list)) throw new ConfigError('expected a list of strategies', `${source} strategies`);
  const i = strategyIndex(list.items, strategyId);
  if (i < 0) throw new ConfigError(`no strategy with id "${strategyId}"`, `${source} strategies`);
  for (const [name, value] of Object.entries(params)) doc.setIn(['strategies', i, 'params', name], value);
  const body = doc.toString({ lineWidth: 0 });
  return `# ${header}\n${body}`;
}
