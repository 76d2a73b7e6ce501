// One stream split by a key, each value handed straight to the subscribers of its key: what
// `source$.pipe(filter((x) => keyOf(x) === key))` gives each subscriber, without calling a filter
// of every subscriber for every value. The engine's order updates and fills each belong to one
// strategy: with a filter per strategy, each update cost a call into every strategy's stream (32
// strategies: 32 filter calls an update, one of them passing); routed, it costs a map lookup.
//
// Same values, same order, same moments: the source is subscribed once, when the first key is
// subscribed (and again after every key was let go, as each filter would subscribe anew); a value
// reaches its key's subscribers synchronously, in the order they subscribed; an error or a completion
// of the source reaches every subscriber of every key, and whoever subscribes after it gets it at once
// (a Subject that ended does the same to a new subscriber).
import { Observable, type Subscriber, type Subscription } from 'rxjs';

/** How the source ended, for subscribers that come later. */
type Ending = { readonly error: unknown } | 'complete';

export function routeByKey<T, K>(source$: Observable<T>, keyOf: (value: T) => K): (key: K) => Observable<T> {
  /** Each key's subscribers, in the order they subscribed. */
  const byKey = new Map<K, Subscriber<T>[]>();
  /** Every subscriber, in the order they subscribed (an ending reaches them in that order). */
  const all = new Set<Subscriber<T>>();
  let source: Subscription | undefined;
  let ended: Ending | undefined;

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
  const end = (how: Ending): void => {
    ended = how;
    const everyone = [...all];
    all.clear();
    byKey.clear();
    for (const s of everyone) {
      if (how === 'complete') s.complete();
      else s.error(how.error);
    }
  };

  return (key) =>
    new Observable<T>((subscriber) => {
      // Nobody left: the source is subscribed afresh, and how it ended before says nothing of it.
      if (all.size === 0) ended = undefined;
      if (ended !== undefined) {
        if (ended === 'complete') subscriber.complete();
        else subscriber.error(ended.error);
        return undefined;
      }
      const list = byKey.get(key) ?? [];
      byKey.set(key, list);
      list.push(subscriber);
      all.add(subscriber);
      if (all.size === 1) {
        source = source$.subscribe({
          next: deliver,
          error: (error: unknown) => end({ error }),
          complete: () => end('complete'),
        });
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
