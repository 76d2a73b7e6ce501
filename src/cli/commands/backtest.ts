import type { RegisterCommand } from '../command.ts';

// Placeholder until the owning issue lands: registered so that `capibot --help` lists it.
export const registerBacktest: RegisterCommand = (program) => {
  program
    .command('backtest')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new Error('capibot backtest is not built yet');
    });
};
