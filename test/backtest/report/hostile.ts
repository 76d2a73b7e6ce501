// A RunRecord whose user-given texts try to break out of the HTML data tag.
import type { RunRecord } from '../../../src/backtest/report/types.ts';
import { roundTrip } from './fixtures.ts';

export const HOSTILE_ID = '</script><script>document.body.dataset.status="pwned"</script><!--';
export const HOSTILE_DATA = 'data/</SCRIPT >&amp;<b>x</b>\u2028.ndjson';

export function hostileRecord(): RunRecord {
  const base = roundTrip();
  return {
    ...base,
    run: {
      ...base.run,
      data: HOSTILE_DATA,
      strategies: [
        { id: HOSTILE_ID, file: 'strategies/<script>.ts', params: { note: '<!-- <script>', '</script>': 1 } },
      ],
    },
    rejectionsByReason: { '</script><img src=x onerror=alert(1)>': 1 },
  };
}
