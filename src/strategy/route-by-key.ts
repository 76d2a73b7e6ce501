// One stream split by a key, each value handed straight to the subscribers of its key: what
// `source$.pipe(filter((x) => keyOf(x) === key))` gives each subscriber, without calling a filter
// of every subscriber for every value. The engine's order updates and fills each belong to one
// strategy: with a filter per strategy, each update cost a call into every strategy's stream (32
// strategies: 32 filter calls an update, one of them passing); routed, it costs a map lookup.
//
// For a hot source (the engine's Subjects): same values, same order, same moments. The source is
// subscribed once, when the first key is subscribed (and again after every key was let go, as each
// filter would subscribe anew); a value reaches its key's subscribers synchronously, in the order
// they subscribed; an error or a completion reaches every subscriber of every key in that order.
// Not for a cold source: a filter per subscriber replays it to each, one shared subscription does not.
import { Observable, type Subscriber, type Subscription } from 'rxjs';

export function routeByKey<T, K>(source$: Observable<T>, keyOf: (value: T) => K): (key: K) => Observable<T> {
  /** Each key's subscribers, in the order they subscribed. */
  const byKey = new Map<K, Subscriber<T>[]>();
  /** Every subscriber, in the order they subscribed (an ending reaches them in that order). */
  const all = new Set<Subscriber<T>>();
  let source: Subscription | undefined;
  /** Counts subscriptions to the source: one made while another was being made replaces it. */
  let generation = 0;

  const deliver = (value: T): void => {
    const list = byKey.get(keyOf(value));
    if (list === undefined) return;
    if (list.length === 1) {
      (list[0] as Subscriber<T>).next(value);
      return;
    }
    // As a Subject does: those subscribed when the value came, unless they left meanwhile.
    for (const s of list.slice()) if (!s.closed) s.next(value);
  };
  // Everyone is let go first: whoever subscribes from an ending callback subscribes the source anew
  // (as a filter of an ended Subject would, and is ended by it at once).
  const end = (reach: (s: Subscriber<T>) => void): void => {
    const everyone = [...all];
    all.clear();
    byKey.clear();
    for (const s of everyone) reach(s);
  };

  return (key) =>
    new Observable<T>((subscriber) => {
      const list = byKey.get(key) ?? [];
      byKey.set(key, list);
      list.push(subscriber);
      all.add(subscriber);
      if (all.size === 1) {
        const mine = ++generation;
        const made = source$.subscribe({
          next: deliver,
          error: (error: unknown) => end((s) => s.error(error)),
          complete: () => end((s) => s.complete()),
        });
        if (generation === mine) source = made;
      }
      return () => {
        const at = list.indexOf(subscriber);
        if (at >= 0) list.splice(at, 1);
        if (!all.delete(subscriber) || all.size > 0) return;
        source?.unsubscribe();
        source = undefined;
      };
    });
}
