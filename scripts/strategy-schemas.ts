// Writes the JSON Schema of every example strategy's params to strategies/schemas/<name>.schema.json,
// for editor completion of the `params:` of a config (what a config file may write: decimal text or
// numbers, with the defaults and descriptions of the strategy's zod schema).
//
//   node bin/run-ts.js scripts/strategy-schemas.ts           # (re)write the files
//   node bin/run-ts.js scripts/strategy-schemas.ts --check   # exit 1 when a file is missing or stale
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { z } from 'zod';
import { loadStrategy } from '../src/strategy/loader.ts';

const ROOT = resolve(import.meta.dirname, '..');
const STRATEGIES = join(ROOT, 'strategies');
const OUT = join(STRATEGIES, 'schemas');

async function render(file: string): Promise<{ name: string; text: string }> {
  const { definition } = await loadStrategy(file);
  // `input`: what a config may contain (before defaults and transforms), which is what editors check.
  const { $schema, ...schema } = z.toJSONSchema(definition.params, { io: 'input', unrepresentable: 'any' });
  const doc = {
    $schema,
    $id: `https://capibot.local/strategies/${definition.name}.schema.json`,
    title: `${definition.name} ${definition.version} params`,
    ...(definition.description !== undefined ? { description: definition.description } : {}),
    ...schema,
  };
  const target = join(OUT, `${definition.name}.schema.json`);
  // Formatted as the repository's prettier would, so `prettier --check` and `--check` here agree.
  const text = await format(JSON.stringify(doc), { ...(await resolveConfig(target)), parser: 'json' });
  return { name: definition.name, text };
}

const check = process.argv.includes('--check');
const files = readdirSync(STRATEGIES)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .sort()
  .map((f) => join(STRATEGIES, f));
const stale: string[] = [];
mkdirSync(OUT, { recursive: true });
for (const file of files) {
  const { name, text } = await render(file);
  const target = join(OUT, `${name}.schema.json`);
  const current = existsSync(target) ? readFileSync(target, 'utf8') : undefined;
  if (current === text) continue;
  if (check) stale.push(basename(target));
  else {
    writeFileSync(target, text);
    console.log(`wrote ${target}`);
  }
}
if (check && stale.length > 0) {
  console.error(
    `stale or missing: ${stale.join(', ')} (run: node bin/run-ts.js scripts/strategy-schemas.ts)`,
  );
  process.exitCode = 1;
} else if (check) {
  console.log(`ok: ${files.length} strategy schemas are up to date`);
}
