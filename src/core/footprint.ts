// Footprints: how many entries each long-lived collection of a structure holds, by name. They are
// what test/engine/bounded-memory.property.test.ts watches over a run of 100 k orders: every
// collection that lives as long as the run must stay within the open orders plus a fixed window.
//
// Cheap by contract: sizes and lengths only, never a copy of the entries (a map of per-symbol lists
// is summed over its few symbols). A structure names every Map, Set and array it keeps for its
// whole life, so a new one that forgets to shrink shows up in the test.

/** Entries per collection, by name (`orders`, `byClientOid`, ...). */
export type Footprint = Readonly<Record<string, number>>;

/** The parts' footprints in one record, each name prefixed with its part's name (`open.orders`). */
export function combineFootprints(parts: Readonly<Record<string, Footprint>>): Footprint {
  const out: Record<string, number> = {};
  for (const [part, fp] of Object.entries(parts)) {
    for (const [name, n] of Object.entries(fp)) out[`${part}.${name}`] = n;
  }
  return out;
}

/** The entries of a map of collections, summed (per-symbol lists and sets). */
export function sumSizes(
  m: ReadonlyMap<unknown, { readonly length: number } | { readonly size: number }>,
): number {
  let n = 0;
  for (const v of m.values()) n += 'length' in v ? v.length : v.size;
  return n;
}
