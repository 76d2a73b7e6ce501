// JSON Schema of the config file for editor completion (e.g. the YAML language server:
// `# yaml-language-server: $schema=./capibot.schema.json` at the top of a config). It describes
// what may be written (defaults make fields optional); descriptions carry the documented defaults.
import { z } from 'zod';
import { ConfigSchema } from './schema.ts';

export function configJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ConfigSchema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    // Decimal fields are transforms, whose defaults zod leaves out of the input schema: add them.
    override: (ctx) => {
      const zs = ctx.zodSchema;
      if (zs instanceof z.ZodDefault && !('default' in ctx.jsonSchema)) {
        ctx.jsonSchema.default = zs.def.defaultValue;
      }
    },
  });
  return { ...schema, title: 'capibot configuration' };
}
