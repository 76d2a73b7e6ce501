import type { RegisterCommand } from '../command.ts';

// Placeholder until the owning issue lands: registered so that `capibot --help` lists it.
export const registerConfigSchema: RegisterCommand = (program) => {
  program
    .command('config-schema')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new Error('capibot config-schema is not built yet');
    });
};
