// Facts only V8 itself can tell (an array's hidden class): `script` runs in a child node with
// --allow-natives-syntax (which a test runner's own process does not have) and TypeScript imports,
// and prints one JSON line, returned parsed.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const REPO = join(import.meta.dirname, '../..');

/** The absolute path of a repository file, quoted for the script. */
export function repoModule(path: string): string {
  return JSON.stringify(join(REPO, path));
}

export function v8Facts(script: string): unknown {
  const out = execFileSync(
    process.execPath,
    ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: REPO, encoding: 'utf8' },
  );
  return JSON.parse(out) as unknown;
}
