// Column mappings of the table importers: `--map time=ts_event,bid=bid_price,ask=ask_price` names,
// for each field the importer needs, the input column holding it. Fields left out take the first
// of their default names that the input has (NautilusTrader's catalog names, Freqtrade's, plain).
import { BadInputError } from '../../core/errors.ts';

export type Field = 'time' | 'bid' | 'ask' | 'open' | 'high' | 'low' | 'close' | 'volume';

/** Default column names per field, tried in order. */
export const DEFAULT_NAMES: Readonly<Record<Field, readonly string[]>> = {
  time: ['ts_event', 'timestamp', 'date', 'time', 'ts'],
  bid: ['bid_price', 'bid', 'best_bid', 'bid_px'],
  ask: ['ask_price', 'ask', 'best_ask', 'ask_px'],
  open: ['open'],
  high: ['high'],
  low: ['low'],
  close: ['close'],
  volume: ['volume'],
};

/** Parses `--map` text; `fields` are the ones this importer reads. */
export function parseColumnMap(text: string | undefined, fields: readonly Field[]): Map<Field, string> {
  const out = new Map<Field, string>();
  if (text === undefined || text.trim() === '') return out;
  for (const part of text.split(',')) {
    const m = /^\s*([a-z_]+)\s*=\s*(.+?)\s*$/.exec(part);
    if (m === null) throw new BadInputError(`--map: ${JSON.stringify(part)} is not FIELD=COLUMN`);
    const field = m[1] as Field;
    if (!fields.includes(field))
      throw new BadInputError(`--map: unknown field ${field} (this import reads ${fields.join(', ')})`);
    if (out.has(field)) throw new BadInputError(`--map: ${field} is mapped twice`);
    out.set(field, m[2] as string);
  }
  return out;
}

/**
 * The input column of each field: the mapped one, else the first default name present. Throws
 * BadInputError naming the file and the missing column.
 */
export function resolveColumns(
  file: string,
  available: readonly string[],
  fields: readonly Field[],
  mapped: ReadonlyMap<Field, string>,
): Record<Field, string> {
  const out = {} as Record<Field, string>;
  for (const f of fields) {
    const m = mapped.get(f);
    if (m !== undefined) {
      if (!available.includes(m))
        throw new BadInputError(
          `missing column ${m} (mapped to ${f}); the file has: ${available.join(', ')}`,
          file,
        );
      out[f] = m;
      continue;
    }
    const found = DEFAULT_NAMES[f].find((n) => available.includes(n));
    if (found === undefined)
      throw new BadInputError(
        `missing column for ${f} (looked for ${DEFAULT_NAMES[f].join(', ')}; name it with --map ${f}=COLUMN); the file has: ${available.join(', ')}`,
        file,
      );
    out[f] = found;
  }
  return out;
}
