import type { RegisterCommand } from '../command.ts';

// Placeholder until the owning issue lands: registered so that `capibot --help` lists it.
export const registerRun: RegisterCommand = (program) => {
  program
    .command('run')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new Error('capibot run is not built yet');
    });
};
