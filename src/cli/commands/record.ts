import type { RegisterCommand } from '../command.ts';

// Placeholder until the owning issue lands: registered so that `capibot --help` lists it.
export const registerRecord: RegisterCommand = (program) => {
  program
    .command('record')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new Error('capibot record is not built yet');
    });
};
