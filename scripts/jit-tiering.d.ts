// Types of ./jit-tiering.js (plain JavaScript: bin/capibot.js runs it before anything is compiled).
export declare const DEFAULT_INTERRUPT_BUDGET: number;
export declare const TIERED_COMMANDS: readonly string[];
export declare function interruptBudget(env?: NodeJS.ProcessEnv): number | undefined;
export declare function budgetChosen(execArgv?: readonly string[], nodeOptions?: string): boolean;
export declare function tieringFlags(env?: NodeJS.ProcessEnv, execArgv?: readonly string[]): string[];
