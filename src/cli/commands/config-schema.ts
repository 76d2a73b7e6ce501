// `capibot config-schema`: the JSON Schema of config files, for editor completion and validation.
import type { RegisterCommand } from '../command.ts';

export const registerConfigSchema: RegisterCommand = (program, ctx) => {
  program
    .command('config-schema')
    .description(
      'Print the JSON Schema of capibot config files (every field, its documented default and description). ' +
        'Save it and point your editor at it, e.g. `# yaml-language-server: $schema=./capibot.schema.json`.',
    )
    .action(async () => {
      const { configJsonSchema } = await import('../../config/json-schema.ts');
      ctx.out.json(configJsonSchema());
    });
};
