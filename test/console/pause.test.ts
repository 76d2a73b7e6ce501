// Pausing a strategy (src/runner/pause.ts): opening placements are dropped while paused, closing
// placements and cancels pass, the strategy keeps seeing its inputs, and the paused set survives a
// restart through the store's meta.
import { of, toArray, firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Intent } from '../../src/core/intents.ts';
import { createPauseBook, pausableStrategies, PAUSED_META } from '../../src/runner/pause.ts';
import { defineStrategy } from '../../src/strategy/define.ts';
import type {
  HookStrategyInstance,
  StrategyContext,
  StreamStrategyInstance,
} from '../../src/strategy/types.ts';
import { z } from 'zod';

const place = { kind: 'place', side: 'open_long' } as unknown as Intent;
const close = { kind: 'place', side: 'close_long' } as unknown as Intent;
const cancel = { kind: 'cancel' } as unknown as Intent;

function metaStore(): {
  getMeta(k: string): string | undefined;
  setMeta(k: string, v: string): void;
  map: Map<string, string>;
} {
  const map = new Map<string, string>();
  return { map, getMeta: (k) => map.get(k), setMeta: (k, v) => void map.set(k, v) };
}

const hooks = defineStrategy({
  name: 'h',
  version: '1',
  params: z.object({}),
  symbols: () => ['cmt_btcusdt'],
  create: (): HookStrategyInstance => {
    return {
      onTicker: () => [place, cancel, close],
      onFill: () => place,
    };
  },
});

const stream = defineStrategy({
  name: 's',
  version: '1',
  params: z.object({}),
  symbols: () => ['cmt_btcusdt'],
  create: (): StreamStrategyInstance => ({ run: () => of(place, cancel, place, close) }),
});

describe('pausable strategies', () => {
  it('drops openings while paused, lets closes and cancels pass, and counts the drops', async () => {
    const store = metaStore();
    const book = createPauseBook({ strategies: ['a', 'b'], store });
    const [a, b] = pausableStrategies(
      [
        { id: 'a', definition: hooks },
        { id: 'b', definition: stream },
      ],
      book,
    );
    const ctx = {} as StrategyContext;
    const ia = a!.definition.create(ctx, {}) as HookStrategyInstance;
    const ib = b!.definition.create(ctx, {}) as StreamStrategyInstance;
    const runB = () => firstValueFrom(ib.run({} as never).pipe(toArray()));
    expect(ia.onTicker?.({} as never)).toEqual([place, cancel, close]);
    expect(await runB()).toEqual([place, cancel, place, close]);
    expect(book.pause('a')).toBe(true);
    expect(book.pause('b')).toBe(true);
    expect(book.pause('nobody')).toBe(false);
    // Openings dropped; cancels and closing placements (exits, stops) pass.
    expect(ia.onTicker?.({} as never)).toEqual([cancel, close]);
    expect(ia.onFill?.({} as never)).toBeUndefined();
    expect('onTimer' in ia).toBe(false);
    expect(await runB()).toEqual([cancel, close]);
    expect(book.dropped('a')).toBe(2);
    expect(book.dropped('b')).toBe(2);
    expect(store.map.get(PAUSED_META)).toBe('["a","b"]');
    expect(book.resume('a')).toBe(true);
    expect(ia.onFill?.({} as never)).toBe(place);
    expect(store.map.get(PAUSED_META)).toBe('["b"]');
    // A restart on the same store: b is still paused; unknown or malformed entries are ignored.
    expect(createPauseBook({ strategies: ['a', 'b'], store }).paused()).toEqual(['b']);
    store.map.set(PAUSED_META, '["zzz", 5]');
    expect(createPauseBook({ strategies: ['a', 'b'], store }).paused()).toEqual([]);
    store.map.set(PAUSED_META, 'not json');
    expect(createPauseBook({ strategies: ['a', 'b'], store }).paused()).toEqual([]);
  });
});
