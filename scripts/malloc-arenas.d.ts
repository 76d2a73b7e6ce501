// Types of ./malloc-arenas.js (plain JavaScript: bin/capibot.js runs it before anything is compiled).
export declare const DEFAULT_MALLOC_ARENAS: number;
export declare function mallocArenaEnv(env?: NodeJS.ProcessEnv): { MALLOC_ARENA_MAX?: string };
export declare function replayEnv(env?: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
