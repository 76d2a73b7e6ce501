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

const op = fc.record({ kind: fc.constantFrom('add', 'delete', 'has'), id: anyId });

describe('CompactIdSet', () => {
  it('splits every id into a head and a tail that give it back', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        const s = splitId(id);
        if (s === undefined) return;
        expect(s.head + s.value.toString(36)).toBe(id);
        expect(s.value).toBeLessThan(2 ** 32);
      }),
    );
  });

  it('answers as a Set<string> for any sequence of adds, deletes and lookups', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const compact = new CompactIdSet();
        const model = new Set<string>();
        for (const o of ops) {
          if (o.kind === 'add') {
            compact.add(o.id);
            model.add(o.id);
          } else if (o.kind === 'delete') {
            expect(compact.delete(o.id)).toBe(model.delete(o.id));
          }
          expect(compact.has(o.id)).toBe(model.has(o.id));
          expect(compact.size).toBe(model.size);
        }
        for (const id of model) expect(compact.has(id)).toBe(true);
      }),
    );
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
  });
});
