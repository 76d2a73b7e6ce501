// Types of ./heap-limit.js (plain JavaScript: bin/capibot.js runs it before anything is compiled).
export declare const DEFAULT_HEAP_MB: number;
export declare const CAPPED_COMMANDS: readonly string[];
export declare function heapLimitMb(env?: NodeJS.ProcessEnv): number | undefined;
export declare function heapChosen(execArgv?: readonly string[], nodeOptions?: string): boolean;
export declare function threadHeapLimitMb(env?: NodeJS.ProcessEnv): number | undefined;
export declare function heapFlags(env?: NodeJS.ProcessEnv): string[];
export declare function replayFlags(env?: NodeJS.ProcessEnv, execArgv?: readonly string[]): string[];
export declare function restartFlags(
  args: readonly string[],
  execArgv?: readonly string[],
  env?: NodeJS.ProcessEnv,
): string[] | undefined;
export declare function outOfMemoryHint(
  signal: NodeJS.Signals | null,
  flags: readonly string[],
): string | undefined;
