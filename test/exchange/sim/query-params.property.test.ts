// The in-process port hands the venue its query parameters as a map (params.ts queryParamsOf) instead
// of URL text. Property: for any names and values (numbers, empty and absent values, repeated names,
// characters URLs must escape), that map is what the venue reads from the text the HTTP client sends.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queryParams, queryParamsOf } from '../../../src/exchange/sim/params.ts';

/** The query text of the pairs, absent values left out (what an HTTP request carries). */
function queryText(pairs: readonly (readonly [string, string | number | undefined])[]): string {
  const usp = new URLSearchParams();
  for (const [k, v] of pairs) if (v !== undefined) usp.append(k, String(v));
  return usp.toString();
}

const name = fc.constantFrom('symbol', 'limit', 'startTime', 'a b', 'x&y', 'é');
const value = fc.oneof(
  fc.constant(undefined),
  fc.constant(''),
  fc.integer({ min: -1e15, max: 1e15 }),
  fc.double({ noNaN: true }),
  fc.string({ maxLength: 12 }),
  fc.constantFrom('cmt_btcusdt', 'a&b=c', '+1', '%20', ' spaced ', '€'),
);

describe('queryParamsOf', () => {
  it('is what the venue reads from the URL text of the same pairs', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(name, value), { maxLength: 8 }), (pairs) => {
        expect([...queryParamsOf(pairs)]).toEqual([...queryParams(queryText(pairs))]);
      }),
      { numRuns: 500 },
    );
  });
});
