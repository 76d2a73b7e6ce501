import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, InvariantViolation } from '../../src/core/errors.ts';
import { CLIENT_OID_PATTERN } from '../../src/core/ids.ts';
import {
  STRATEGY_PART_PATTERN,
  formatClientOid,
  parseClientOid,
  strategyOidPart,
} from '../../src/execution/client-oid.ts';

const arbPrefix = fc.stringMatching(/^[A-Za-z0-9]{1,8}$/);
const arbConfigId = fc.stringMatching(/^[A-Za-z0-9_]{1,16}$/);
const arbAnyStrategy = fc.oneof(
  arbConfigId,
  fc.string({ maxLength: 60 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
);
const arbSequence = fc.oneof(fc.nat({ max: 10_000 }), fc.maxSafeNat());

describe('client_oid: properties', () => {
  it('is ≤ 40 chars of [A-Za-z0-9_-] and parses back to (strategy part, sequence)', () => {
    fc.assert(
      fc.property(arbPrefix, arbAnyStrategy, arbSequence, (prefix, strategy, sequence) => {
        const id = formatClientOid(prefix, strategy, sequence);
        expect(id.length).toBeLessThanOrEqual(40);
        expect(CLIENT_OID_PATTERN.test(id)).toBe(true);
        expect(parseClientOid(id, prefix)).toEqual({ strategy: strategyOidPart(strategy), sequence });
        expect(formatClientOid(prefix, strategy, sequence)).toBe(id); // deterministic
      }),
      { numRuns: 500 },
    );
  });

  it('keeps config strategy ids as they are; maps anything else to a valid 16-char part', () => {
    fc.assert(
      fc.property(arbConfigId, (id) => {
        expect(strategyOidPart(id)).toBe(id);
      }),
    );
    fc.assert(
      fc.property(arbAnyStrategy, (s) => {
        const part = strategyOidPart(s);
        expect(STRATEGY_PART_PATTERN.test(part)).toBe(true);
      }),
    );
  });

  it('parses only canonical ids: whatever parses formats back to the very same text', () => {
    fc.assert(
      fc.property(
        arbPrefix,
        fc.oneof(
          fc.stringMatching(/^[A-Za-z0-9]{1,8}-[A-Za-z0-9_]{1,16}-[0-9a-z]{1,12}$/),
          fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/),
        ),
        (prefix, s) => {
          const p = parseClientOid(s, prefix);
          if (p !== undefined) expect(formatClientOid(prefix, p.strategy, p.sequence)).toBe(s);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives distinct ids to distinct sequences of one strategy', () => {
    fc.assert(
      fc.property(arbPrefix, arbConfigId, arbSequence, arbSequence, (prefix, s, a, b) => {
        fc.pre(a !== b);
        expect(formatClientOid(prefix, s, a)).not.toBe(formatClientOid(prefix, s, b));
      }),
    );
  });
});

describe('client_oid: readable cases', () => {
  it('formats <prefix>-<strategy>-<base-36 sequence>', () => {
    expect(formatClientOid('cb', 'grid_btc', 0)).toBe('cb-grid_btc-0');
    expect(formatClientOid('cb', 'grid_btc', 46_655)).toBe('cb-grid_btc-zzz');
    expect(formatClientOid('cb', 'grid_btc', Number.MAX_SAFE_INTEGER)).toBe('cb-grid_btc-2gosa7pa2gv');
  });

  it('recognises only its own prefix and canonical sequences', () => {
    expect(parseClientOid('cb-grid_btc-1a', 'cb')).toEqual({ strategy: 'grid_btc', sequence: 46 });
    expect(parseClientOid('cb-grid_btc-1a', 'xx')).toBeUndefined();
    expect(parseClientOid('cbx-grid_btc-1a', 'cb')).toBeUndefined();
    expect(parseClientOid('cb-grid_btc-01a', 'cb')).toBeUndefined(); // leading zero
    expect(parseClientOid('cb-grid_btc-1A', 'cb')).toBeUndefined(); // upper case
    expect(parseClientOid('cb-grid-btc-1a', 'cb')).toBeUndefined(); // four parts
    expect(parseClientOid('manual-order-7', 'cb')).toBeUndefined();
    expect(parseClientOid('cb-grid_btc-zzzzzzzzzzz', 'cb')).toBeUndefined(); // beyond a safe integer
  });

  it('maps a long or odd strategy id deterministically, with a hash so neighbours do not collide', () => {
    const a = strategyOidPart('momentum-btc-long-v2-fast');
    const b = strategyOidPart('momentum-btc-long-v2-slow');
    expect(a).toMatch(/^momentum_[0-9a-z]{7}$/);
    expect(a).not.toBe(b);
    expect(strategyOidPart('a.b')).not.toBe(strategyOidPart('a_b'));
  });

  it('refuses a bad prefix or sequence', () => {
    expect(() => formatClientOid('c-b', 's', 1)).toThrow(ConfigError);
    expect(() => formatClientOid('toolongprefix', 's', 1)).toThrow(ConfigError);
    expect(() => formatClientOid('cb', 's', -1)).toThrow(InvariantViolation);
    expect(() => formatClientOid('cb', 's', 1.5)).toThrow(InvariantViolation);
  });
});
