// core/object-lists.ts: the lists hold what `[]` and `.map` would (a property), and an empty one has
// the hidden class of a full one — what they exist for, read from V8 itself in a child process
// (`%HaveSameMap` needs --allow-natives-syntax, which a test runner's own process does not have).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapToObjects, NO_OBJECTS, objectList } from '../../src/core/object-lists.ts';
import { repoModule, v8Facts } from '../helpers/v8-natives.ts';

describe('object lists', () => {
  it('mapToObjects gives what map gives; objectList is an empty list to push to', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ id: fc.string(), n: fc.integer() })), (items) => {
        const f = (x: { id: string; n: number }): { key: string } => ({ key: `${x.id}:${x.n}` });
        expect(mapToObjects(items, f)).toEqual(items.map(f));
        const list = objectList<{ id: string; n: number }>();
        expect(list).toEqual([]);
        for (const x of items) list.push(x);
        expect(list).toEqual(items);
      }),
    );
    expect(NO_OBJECTS).toEqual([]);
  });

  it('an empty list has the hidden class of a list of objects (V8), unlike `[]` and an empty map', () => {
    const facts = v8Facts(`
      const { doubleList, mapToDoubles, mapToObjects, NO_OBJECTS, objectList } = await import(${repoModule('src/core/object-lists.ts')});
      const full = [{ a: 1 }];
      const same = (x) => %HaveSameMap(x, full);
      console.log(JSON.stringify({
        objectList: same(objectList()),
        noObjects: same(NO_OBJECTS),
        mapEmpty: same(mapToObjects([], (x) => ({ x }))),
        mapFull: same(mapToObjects([1], (x) => ({ x }))),
        doubles: %HaveSameMap(doubleList(), [1.5]) && %HaveSameMap(mapToDoubles([], (x) => x), [1.5]),
        literal: same([]),
        plainMapEmpty: same([].map((x) => ({ x }))),
        ...optimized(),
      }));
      // The same two lines run by optimized code: \`.map\` then gives a holey array, mapToObjects not.
      function optimized() {
        const viaHelper = (list) => mapToObjects(list, (x) => ({ x }));
        const viaMap = (list) => list.map((x) => ({ x }));
        for (const f of [viaHelper, viaMap]) {
          %PrepareFunctionForOptimization(f);
          f([1, 2]);
          f([1, 2]);
          %OptimizeFunctionOnNextCall(f);
        }
        return { optimizedHelper: same(viaHelper([1, 2])), optimizedMap: same(viaMap([1, 2])) };
      }`);
    expect(facts).toEqual({
      objectList: true,
      noObjects: true,
      mapEmpty: true,
      mapFull: true,
      // What this module replaces: if V8 ever gives them the same class, it is no longer needed.
      doubles: true,
      literal: false,
      plainMapEmpty: false,
      optimizedHelper: true,
      optimizedMap: false,
    });
  });
});
