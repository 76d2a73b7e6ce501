// CompactIdSet must answer exactly as a Set<string> would, for any ids (capibot's own shapes and
// anything else), and keep capibot's ids in a few bytes each.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompactIdSet, splitId } from '../../src/store/compact-id-set.ts';

/** Ids like capibot meets: client_oids, 18-digit exchange ids, and arbitrary strings. */
const anyId = fc.oneof(
  fc
    .tuple(fc.constantFrom('cb', 'x1'), fc.constantFrom('ema', 'mm_1'), fc.nat({ max: 3_000_000_000 }))
    .map(([p, s, n]) => `${p}-${s}-${n.toString(36)}`),
  fc.bigInt({ min: 100_000_000_000_000_000n, max: 100_000_000_000_100_000n }).map((n) => n.toString()),
  fc.string({ maxLength: 12 }),
  fc.stringMatching(/^[a-z0]{0,9}$/),
);

/** A small pool of ids (many in one head, in any order) and operations drawing from it, so that
 *  adds, deletes and lookups meet the same ids again, across the typed array's growth. */
const pooled = fc
  .tuple(
    fc.array(anyId, { minLength: 1, maxLength: 20 }),
    fc.uniqueArray(fc.nat({ max: 5_000 }), { minLength: 1, maxLength: 60 }),
  )
  .chain(([ids, seqs]) => {
    const pool = [...ids, ...seqs.map((n) => `cb-mm-${n.toString(36)}`)];
    return fc.array(
      fc.record({
        kind: fc.constantFrom('add', 'add', 'delete', 'has', 'clear'),
        id: fc.constantFrom(...pool),
      }),
      { maxLength: 400 },
    );
  });

describe('CompactIdSet', () => {
  it('splits every id into a head and a tail that give it back', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        const s = splitId(id);
        if (s === undefined) return;
        expect(s.head + s.value.toString(36)).toBe(id);
        expect(s.value).toBeLessThan(2 ** 32);
        expect(Number.isSafeInteger(s.value) && s.value >= 0).toBe(true);
      }),
    );
  });

  it('takes the last ≤ 6 characters of [0-9a-z] as the tail, leading zeros in the head', () => {
    expect(splitId('cb-ema-1a2b')).toEqual({ head: 'cb-ema-', value: parseInt('1a2b', 36) });
    expect(splitId('719220560554361701')).toEqual({ head: '719220560554', value: parseInt('361701', 36) });
    expect(splitId('x-007')).toEqual({ head: 'x-00', value: 7 });
    expect(splitId('x-000')).toEqual({ head: 'x-00', value: 0 });
    expect(splitId('a!1')).toEqual({ head: 'a!', value: 1 });
    expect(splitId('a/1')).toEqual({ head: 'a/', value: 1 });
    expect(splitId('A-B')).toBeUndefined();
    expect(splitId('')).toBeUndefined();
  });

  it('answers as a Set<string> for any sequence of adds, deletes and lookups', () => {
    fc.assert(
      fc.property(pooled, (ops) => {
        const compact = new CompactIdSet();
        const model = new Set<string>();
        for (const o of ops) {
          if (o.kind === 'add') {
            compact.add(o.id);
            model.add(o.id);
          } else if (o.kind === 'delete') {
            expect(compact.delete(o.id)).toBe(model.delete(o.id));
          } else if (o.kind === 'clear' && o.id.length % 7 === 0) {
            compact.clear();
            model.clear();
          }
          expect(compact.has(o.id)).toBe(model.has(o.id));
          expect(compact.size).toBe(model.size);
        }
        for (const o of ops) expect(compact.has(o.id)).toBe(model.has(o.id));
      }),
    );
  });

  it('deletes from the middle of a head without losing its neighbours', () => {
    const set = new CompactIdSet().add('o-1').add('o-3').add('o-2');
    expect(set.delete('o-2')).toBe(true);
    expect(set.delete('o-2')).toBe(false);
    expect([set.has('o-1'), set.has('o-2'), set.has('o-3'), set.size]).toEqual([true, false, true, 2]);
  });

  it('keeps 100 000 of capibot ids in under 6 slots (4 bytes each) per id, none as strings', () => {
    const set = new CompactIdSet();
    let exchangeId = 719_220_560_554_361_701n;
    for (let i = 0; i < 100_000; i++) {
      set.add(`cb-ema-${i.toString(36)}`);
      exchangeId += BigInt(1 + (i % 97));
      set.add(exchangeId.toString());
    }
    const f = set.footprint();
    expect(set.size).toBe(200_000);
    expect(f.strings).toBe(0);
    expect(f.slots / set.size).toBeLessThan(1.6);
    expect(f.slots).toBeGreaterThanOrEqual(set.size);
    expect(f.heads).toBeGreaterThan(1);
  });
});
