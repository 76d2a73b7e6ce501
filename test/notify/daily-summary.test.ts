// The daily summary reaches a webhook at its UTC hour: the run's PnL (exact decimals as strings), its
// trading state, the fills of the day and the open orders, as one `daily` notice.
import pino from 'pino';
import { Subject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidatedConfigSchema } from '../../src/config/cross-checks.ts';
import { dec } from '../../src/core/decimal.ts';
import type { EngineEvent } from '../../src/engine/events.ts';
import { startRunNotifications, type RunNotifications } from '../../src/runner/notify.ts';
import { sendJson, startLocalServer } from '../helpers/local-server.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

describe('the daily summary', () => {
  it('is sent at its UTC hour with the PnL, the trading state, the fills of the day and open orders', async () => {
    const hook = await startLocalServer((_req, res) => sendJson(res, 200, { ok: true }));
    closers.push(() => hook.close());
    const config = ValidatedConfigSchema.parse({
      mode: 'paper',
      strategies: [{ id: 'a', file: 'a.ts' }],
      notify: { targets: [{ name: 'hook', urlEnv: 'HOOK_URL' }], dailySummaryUtcHour: 7 },
    });
    // The wall clock stands 80 ms before 07:00 UTC: the summary falls due in 80 ms of real time.
    const started = Date.now();
    const now = (): number => Date.UTC(2026, 0, 5, 7) - 80 + (Date.now() - started);
    const notify: RunNotifications = startRunNotifications({
      config,
      targets: [{ name: 'hook', format: 'json', url: hook.url, events: ['daily'] }],
      engine: {
        events$: new Subject<EngineEvent>(),
        pnl: () => ({ realized: dec('12.5'), unrealized: dec('-0.25'), fees: dec('1.2'), net: dec('11.05') }),
        tradingState: () => 'REDUCING',
        openOrders: () => [],
      },
      store: { getOrder: () => undefined },
      log: pino({ level: 'silent' }),
      now,
    });
    closers.push(() => notify.close());
    for (let i = 0; i < 100 && hook.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(hook.requests).toHaveLength(1);
    const body = JSON.parse(hook.requests[0]?.body ?? '{}') as {
      event: string;
      data: Record<string, unknown>;
    };
    expect(body.event).toBe('daily');
    expect(body.data).toMatchObject({
      tradingState: 'REDUCING',
      realized: '12.5',
      unrealized: '-0.25',
      fees: '1.2',
      net: '11.05',
      fills: 0,
      openOrders: 0,
    });
  });
});
