// The processes that replay recordings start with two glibc malloc arenas (scripts/malloc-arenas.js):
// `capibot backtest` and `sweep` in the child bin/capibot.js starts, the bench's children through
// replayEnv. A MALLOC_ARENA_MAX the user set is left as it is. The child's environment itself is
// checked end to end in test/cli/jit-tiering.test.ts.
import { describe, expect, it } from 'vitest';
import { DEFAULT_MALLOC_ARENAS, mallocArenaEnv, replayEnv } from '../../scripts/malloc-arenas.js';

describe('malloc arenas for replays', () => {
  it('adds MALLOC_ARENA_MAX when the environment has none', () => {
    expect(DEFAULT_MALLOC_ARENAS).toBe(2);
    expect(mallocArenaEnv({})).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(mallocArenaEnv({ MALLOC_ARENA_MAX: '  ' })).toEqual({ MALLOC_ARENA_MAX: '2' });
  });

  it('leaves a MALLOC_ARENA_MAX the user set alone', () => {
    expect(mallocArenaEnv({ MALLOC_ARENA_MAX: '8' })).toEqual({});
    expect(replayEnv({ MALLOC_ARENA_MAX: '1', PATH: '/bin' })).toEqual({
      MALLOC_ARENA_MAX: '1',
      PATH: '/bin',
    });
  });

  it("gives the bench's children the rest of the environment as it is", () => {
    expect(replayEnv({ PATH: '/bin', TZ: 'UTC' })).toEqual({
      PATH: '/bin',
      TZ: 'UTC',
      MALLOC_ARENA_MAX: '2',
    });
  });
});
