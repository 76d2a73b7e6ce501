// routeByKey gives each subscriber what a filter on its key gives it: the same values at the same
// frames, the same error or completion, late subscribers included.
import fc from 'fast-check';
import { defer, EMPTY, filter, Observable, Subject, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { routeByKey } from '../../src/strategy/route-by-key.ts';

interface Item {
  readonly key: string;
  readonly n: number;
}

const newScheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

const values: Record<string, Item> = {
  a: { key: 'A', n: 1 },
  b: { key: 'B', n: 2 },
  c: { key: 'A', n: 3 },
  d: { key: 'C', n: 4 },
};

describe('routeByKey (marbles)', () => {
  it("hands each key's values to its subscribers only, at their frames, then completes them all", () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const source$ = hot('-a-b-c-d-|', values);
      const route = routeByKey(source$, (x: Item) => x.key);
      expectObservable(route('A')).toBe('-a---c---|', values);
      expectObservable(route('B')).toBe('---b-----|', values);
      expectObservable(route('Z')).toBe('---------|', values);
    });
  });

  it('passes an error of the source to every key, and to a key subscribed after it at once', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const source$ = hot('-a-b-#', values, new Error('gone'));
      const route = routeByKey(source$, (x: Item) => x.key);
      expectObservable(route('A')).toBe('-a---#', values, new Error('gone'));
      expectObservable(route('B')).toBe('---b-#', values, new Error('gone'));
      expectObservable(route('A'), '------^').toBe('------#', values, new Error('gone'));
    });
  });

  it('stops delivering to a subscriber that left, and keeps the others', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const source$ = hot('-a-b-c-d-', values);
      const route = routeByKey(source$, (x: Item) => x.key);
      expectObservable(route('A'), '^--!').toBe('-a-', values);
      expectObservable(route('A')).toBe('-a---c---', values);
    });
  });

  it('subscribes the source once for any number of keys, and lets it go with the last one', () => {
    let subscriptions = 0;
    let live = 0;
    const subject = new Subject<Item>();
    const source$ = new Observable<Item>((s) => {
      subscriptions++;
      live++;
      const inner = subject.subscribe(s);
      return () => {
        live--;
        inner.unsubscribe();
      };
    });
    const route = routeByKey(source$, (x: Item) => x.key);
    const a = route('A').subscribe();
    const b = route('B').subscribe();
    const a2 = route('A').subscribe();
    expect([subscriptions, live]).toEqual([1, 1]);
    a.unsubscribe();
    b.unsubscribe();
    expect(live).toBe(1);
    a2.unsubscribe();
    expect(live).toBe(0);
    route('C').subscribe().unsubscribe();
    expect([subscriptions, live]).toEqual([2, 0]);
  });
});

describe('routeByKey (found in review)', () => {
  it('keeps the source subscribed anew from an ending callback, and lets it go once', () => {
    // The source ends at its first subscription and is live at the next; a subscriber subscribes
    // again from its completion. The second subscription must be the one kept (and let go).
    const scenario = (split: (source$: Observable<Item>) => (key: string) => Observable<Item>) => {
      const live = new Subject<Item>();
      let made = 0;
      const source$ = defer(() => (made++ === 0 ? EMPTY : live));
      const of = split(source$);
      const seen: string[] = [];
      let again: Subscription | undefined;
      of('A').subscribe({ complete: () => (again = of('A').subscribe((v) => seen.push(`again ${v.n}`))) });
      live.next({ key: 'A', n: 1 });
      again?.unsubscribe();
      const later = of('A').subscribe((v) => seen.push(`later ${v.n}`));
      live.next({ key: 'A', n: 2 });
      later.unsubscribe();
      return { seen, observersLeft: live.observers.length };
    };
    const routed = scenario((source$) => routeByKey(source$, (x) => x.key));
    expect(routed).toEqual(scenario((source$) => (key) => source$.pipe(filter((x) => x.key === key))));
    expect(routed).toEqual({ seen: ['again 1', 'later 2'], observersLeft: 0 });
  });
});

type Step =
  | { readonly kind: 'next'; readonly key: number; readonly n: number }
  | { readonly kind: 'subscribe'; readonly key: number }
  | { readonly kind: 'unsubscribe'; readonly which: number }
  | { readonly kind: 'complete' }
  | { readonly kind: 'error' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('next' as const), key: fc.nat(3), n: fc.nat(99) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('subscribe' as const), key: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('unsubscribe' as const), which: fc.nat(20) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'complete' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'error' as const }) },
);

/** Plays `steps` against one way of splitting a Subject; what every subscriber saw, in one log. */
function play(
  steps: readonly Step[],
  split: (source$: Subject<Item>) => (key: string) => Observable<Item>,
): string[] {
  const log: string[] = [];
  const source = new Subject<Item>();
  const of = split(source);
  const subs: Subscription[] = [];
  for (const s of steps) {
    if (s.kind === 'next') source.next({ key: `k${s.key}`, n: s.n });
    else if (s.kind === 'complete') source.complete();
    else if (s.kind === 'error') source.error(new Error('e'));
    else if (s.kind === 'unsubscribe') subs[s.which % Math.max(1, subs.length)]?.unsubscribe();
    else {
      const id = subs.length;
      subs.push(
        of(`k${s.key}`).subscribe({
          next: (x) => log.push(`${id} next ${x.key} ${x.n}`),
          error: () => log.push(`${id} error`),
          complete: () => log.push(`${id} complete`),
        }),
      );
    }
  }
  return log;
}

describe('routeByKey (property)', () => {
  it('gives every subscriber what a filter on its key gives, in the same order', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const routed = play(steps, (source$) => routeByKey(source$, (x) => x.key));
        const filtered = play(steps, (source$) => (key) => source$.pipe(filter((x) => x.key === key)));
        expect(routed).toEqual(filtered);
      }),
      { numRuns: 2_000 },
    );
  });
});
