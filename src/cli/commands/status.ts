import type { RegisterCommand } from '../command.ts';

// Placeholder until the owning issue lands: registered so that `capibot --help` lists it.
export const registerStatus: RegisterCommand = (program) => {
  program
    .command('status')
    .description('(not built yet)')
    .allowUnknownOption()
    .action(() => {
      throw new Error('capibot status is not built yet');
    });
};
