import type { RegisterCommand } from '../command.ts';

// Placeholder until the owning issue lands: registered so that `capibot --help` lists it.
export const registerNewStrategy: RegisterCommand = (program) => {
  program
    .command('new-strategy')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new Error('capibot new-strategy is not built yet');
    });
};
