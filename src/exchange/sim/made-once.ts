// The simulator's records are immutable (an order's every change is a new revision object, a fill
// never changes), so whatever is made of one (its wire row, its core report) can be made once and
// kept for as long as the record lives.

/** What `make` makes of `record`, made on the first call and remembered in `cache` after that. */
export function madeOnce<K extends object, V>(cache: WeakMap<K, V>, record: K, make: (record: K) => V): V {
  let made = cache.get(record);
  if (made === undefined) {
    made = make(record);
    cache.set(record, made);
  }
  return made;
}
