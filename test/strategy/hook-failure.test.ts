// The reason a strategy is disabled: which hook, what it threw, and the line of the strategy's own
// code (frames in capibot's src/, node_modules and Node are skipped; loaders' URLs are cleaned up).
import { of, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { clientOid, strategyId } from '../../src/core/ids.ts';
import { hostStrategies, type HostedStrategy } from '../../src/strategy/host.ts';
import { describeFailure, HookFailure, strategyOrigin } from '../../src/strategy/hook-failure.ts';
import { validateIntent } from '../../src/strategy/intent-schema.ts';
import type { IntentOutput } from '../../src/strategy/types.ts';
import { BTC, makeTicker } from '../helpers/market.ts';

const HERE = /\(test\/strategy\/hook-failure\.test\.ts:\d+:\d+\)$/;

function thrownBy(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('did not throw');
}

/** Runs `f`, waits a little, and returns the promise rejections nobody handled meanwhile. */
async function unhandledDuring(f: () => void): Promise<unknown[]> {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown): void => {
    unhandled.push(e);
  };
  process.on('unhandledRejection', onUnhandled);
  try {
    f();
    await new Promise((r) => setTimeout(r, 20));
    return unhandled;
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
}

/** The host's outputs for one strategy fed `tickers` (synchronously). */
function outputsOf(s: HostedStrategy, tickers: ReturnType<typeof makeTicker>[] = []): unknown[] {
  const out: unknown[] = [];
  hostStrategies(
    [s],
    { tickers$: of(...tickers), orders$: of(), fills$: of(), clock$: of() },
    { now: () => 1 },
  ).subscribe((o) => out.push(o));
  return out;
}

describe('describeFailure', () => {
  it('names the hook, the error type when it is not a plain Error, and the strategy line', () => {
    const e = thrownBy(() => (undefined as unknown as { price: number }).price);
    const reason = describeFailure(new HookFailure('onTicker', e));
    expect(reason).toMatch(
      /^onTicker threw TypeError: Cannot read properties of undefined \(reading 'price'\) /,
    );
    expect(reason).toMatch(HERE);
  });

  it("points past capibot's own frames to the strategy line that called into it", () => {
    // validateIntent throws from src/strategy/intent-schema.ts; the strategy's line is this file's.
    const e = thrownBy(() =>
      validateIntent(
        { kind: 'cancel', symbol: BTC, clientOid: clientOid('') },
        { strategy: strategyId('s'), symbols: new Set([BTC]) },
      ),
    );
    const reason = describeFailure(new HookFailure('onFill', e));
    expect(reason).toMatch(/^onFill threw strategy s: invalid intent: /);
    expect(reason).toMatch(HERE);
    expect(reason).not.toMatch(/src\/strategy/);
  });

  it('says so for a value that is not an Error, and for a run stream that errored', () => {
    expect(describeFailure(new HookFailure('onTimer', 42))).toBe('onTimer threw a non-Error value: 42');
    expect(describeFailure(new HookFailure('run', new RangeError('bad')))).toMatch(
      /^run errored with RangeError: bad /,
    );
  });

  it('leaves errors that no hook threw (an invalid intent) as their message', () => {
    expect(describeFailure(new Error('strategy s: invalid intent: size 0'))).toBe(
      'strategy s: invalid intent: size 0',
    );
  });
});

describe('strategyOrigin', () => {
  it('reads file:// URLs and drops a loader query string', () => {
    const e = new Error('x');
    e.stack = [
      'Error: x',
      '    at P.cmp (/opt/app/node_modules/big.js/big.mjs:305:11)',
      '    at node:internal/process/task_queues:95:5',
      '    at Object.onTicker (file:///home/me/bot/strategies/dip.ts?tsx-namespace=abc-123:12:7)',
    ].join('\n');
    expect(strategyOrigin(e, '/home/me/bot')).toBe('strategies/dip.ts:12:7');
    expect(strategyOrigin(e, '/elsewhere')).toBe('/home/me/bot/strategies/dip.ts:12:7');
  });

  it('reads paths with spaces and parentheses, and bare `at path:line:col` frames', () => {
    const e = new Error('x');
    e.stack = 'Error: x\n    at Object.onTicker (/home/John Smith/bot (x86)/strategies/dip.ts:3:9)';
    expect(strategyOrigin(e, '/home/John Smith/bot (x86)')).toBe('strategies/dip.ts:3:9');
    e.stack = 'Error: x\n    at /home/me/bot/strategies/dip.ts:4:2';
    expect(strategyOrigin(e, '/home/me/bot')).toBe('strategies/dip.ts:4:2');
  });

  it("is undefined when no frame is the strategy's", () => {
    const e = new Error('x');
    e.stack = 'Error: x\n    at node:internal/timers:1:1\n    at <anonymous>';
    expect(strategyOrigin(e)).toBeUndefined();
  });
});

describe('host: hook misuse', () => {
  it('disables a hook that returns a Promise, saying why, instead of an invalid-intent error', () => {
    const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
    ts.run(({ cold, expectObservable }) => {
      const asyncHook: HostedStrategy = {
        id: strategyId('a'),
        symbols: [BTC],
        instance: { onTicker: (() => Promise.resolve([])) as unknown as () => IntentOutput },
      };
      const out$ = hostStrategies(
        [asyncHook],
        { tickers$: cold('-a', { a: makeTicker(BTC, '1') }), orders$: of(), fills$: of(), clock$: of() },
        { now: () => 5 },
      );
      expectObservable(out$).toBe('-(u|)', {
        u: {
          kind: 'StrategyDisabled',
          strategy: 'a',
          reason:
            'onTicker returned a Promise: hooks are synchronous and return intents (or nothing), never a Promise',
          at: 5,
        },
      });
    });
  });

  it('an async hook that rejects is refused, and its rejection never goes unhandled', async () => {
    const failing: HostedStrategy = {
      id: strategyId('a'),
      symbols: [BTC],
      instance: {
        onTicker: (async () =>
          Promise.reject(new Error('awaited thing failed'))) as unknown as () => IntentOutput,
      },
    };
    let out: unknown[] = [];
    expect(await unhandledDuring(() => (out = outputsOf(failing, [makeTicker(BTC, '1')])))).toEqual([]);
    expect(out).toEqual([
      expect.objectContaining({
        kind: 'StrategyDisabled',
        reason: expect.stringMatching(/^onTicker returned a Promise/) as unknown,
      }),
    ]);
  });

  it('names a stream strategy whose run() throws before returning its stream', () => {
    const typo: HostedStrategy = {
      id: strategyId('s'),
      symbols: [BTC],
      instance: {
        run: () => {
          throw new TypeError('tickers$.pipee is not a function');
        },
      },
    };
    expect(outputsOf(typo)).toEqual([
      expect.objectContaining({
        kind: 'StrategyDisabled',
        reason: expect.stringMatching(
          /^run errored with TypeError: tickers\$\.pipee is not a function \(test\/strategy\/hook-failure\.test\.ts:\d+:\d+\)$/,
        ) as unknown,
      }),
    ]);
  });

  it('refuses a run() that returns no Observable (an async run, or nothing), its rejection handled', async () => {
    for (const run of [async () => Promise.reject(new Error('async boom')), () => undefined]) {
      const s: HostedStrategy = { id: strategyId('s'), symbols: [BTC], instance: { run: run as never } };
      let out: unknown[] = [];
      expect(await unhandledDuring(() => (out = outputsOf(s)))).toEqual([]);
      expect(out).toEqual([
        expect.objectContaining({
          reason: 'run did not return an Observable of intents (run is synchronous)',
        }),
      ]);
    }
  });

  it('names a stream strategy whose run() stream errors', () => {
    const ts = new TestScheduler((a, b) => expect(a).toEqual(b));
    ts.run(({ expectObservable }) => {
      const stream: HostedStrategy = {
        id: strategyId('s'),
        symbols: [BTC],
        instance: { run: () => throwError(() => new Error('feed broke')) },
      };
      const out$ = hostStrategies(
        [stream],
        { tickers$: of(), orders$: of(), fills$: of(), clock$: of() },
        { now: () => 0 },
      );
      expectObservable(out$).toBe('(u|)', {
        u: {
          kind: 'StrategyDisabled',
          strategy: 's',
          reason: expect.stringMatching(/^run errored with feed broke/) as unknown,
          at: 0,
        },
      });
    });
  });
});
