import type { RegisterCommand } from '../command.ts';
import { registerApi } from './api.ts';
import { registerSim } from './sim.ts';
import { registerRecord } from './record.ts';
import { registerImport } from './import.ts';
import { registerRun } from './run.ts';
import { registerBacktest } from './backtest.ts';
import { registerSweep } from './sweep.ts';
import { registerValidate } from './validate.ts';
import { registerNewStrategy } from './new-strategy.ts';
import { registerStatus } from './status.ts';
import { registerKill } from './kill.ts';
import { registerConfigSchema } from './config-schema.ts';

/** Every command, in the order `capibot --help` lists them. */
export const COMMANDS: readonly RegisterCommand[] = [
  registerBacktest,
  registerRun,
  registerSim,
  registerRecord,
  registerImport,
  registerApi,
  registerSweep,
  registerValidate,
  registerConfigSchema,
  registerNewStrategy,
  registerStatus,
  registerKill,
];
