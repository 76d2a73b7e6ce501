import type { RegisterCommand } from '../command.ts';

// Placeholder until the owning issue lands: registered so that `capibot --help` lists it.
export const registerKill: RegisterCommand = (program) => {
  program
    .command('kill')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new Error('capibot kill is not built yet');
    });
};
