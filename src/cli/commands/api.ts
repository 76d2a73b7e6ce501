import type { RegisterCommand } from '../command.ts';

// Placeholder until the owning issue lands: registered so that `capibot --help` lists it.
export const registerApi: RegisterCommand = (program) => {
  program
    .command('api')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new Error('capibot api is not built yet');
    });
};
