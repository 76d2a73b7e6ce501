import type { Command } from 'commander';
import type { CliOutput } from './output.ts';

export interface CliContext {
  readonly out: CliOutput;
  /** Sets the process exit code for a command that finished without throwing. */
  setExitCode(code: number): void;
}

/** A command module registers one (or a family of) subcommand(s) on the program. */
export type RegisterCommand = (program: Command, ctx: CliContext) => void;
