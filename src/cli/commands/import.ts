import type { RegisterCommand } from '../command.ts';

// Placeholder until the owning issue lands: registered so that `capibot --help` lists it.
export const registerImport: RegisterCommand = (program) => {
  program
    .command('import')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new Error('capibot import is not built yet');
    });
};
