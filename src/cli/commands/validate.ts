import type { RegisterCommand } from '../command.ts';

// Placeholder until the owning issue lands: registered so that `capibot --help` lists it.
export const registerValidate: RegisterCommand = (program) => {
  program
    .command('validate')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new Error('capibot validate is not built yet');
    });
};
