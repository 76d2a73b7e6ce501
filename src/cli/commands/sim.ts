import type { RegisterCommand } from '../command.ts';

// Placeholder until the owning issue lands: registered so that `capibot --help` lists it.
export const registerSim: RegisterCommand = (program) => {
  program
    .command('sim')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new Error('capibot sim is not built yet');
    });
};
