import type { RegisterCommand } from '../command.ts';

// Placeholder until the owning issue lands: registered so that `capibot --help` lists it.
export const registerSweep: RegisterCommand = (program) => {
  program
    .command('sweep')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new Error('capibot sweep is not built yet');
    });
};
