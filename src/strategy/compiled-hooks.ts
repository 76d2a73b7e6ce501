// Module resolve hook, registered by loader.ts when capibot runs compiled (dist/) and imports a
// TypeScript strategy. Strategies import the public API by path (`../src/strategy/index.ts`); without
// this hook that would load a second copy of the framework from src/ beside the running one from
// dist/: two ConfigError classes (`instanceof` fails, a defineStrategy error would exit 1 instead of
// 2), two module states. The hook sends every import of a file under src/ to its compiled twin under
// dist/, so the strategy shares the very modules the CLI runs.
import { existsSync } from 'node:fs';
import type { ResolveHook } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface CompiledHooksData {
  /** file: URL of the source folder, with a trailing slash. */
  readonly srcUrl: string;
  /** file: URL of the compiled folder, with a trailing slash. */
  readonly distUrl: string;
}

let data: CompiledHooksData | undefined;

export function initialize(d: CompiledHooksData): void {
  data = d;
}

/** The dist/ URL of a src/ module URL (its query dropped), or undefined for any other URL. */
export function compiledTwin(url: string, d: CompiledHooksData): string | undefined {
  const bare = url.replace(/[?#].*$/, '');
  if (!bare.startsWith(d.srcUrl) || !/\.[cm]?ts$/.test(bare)) return undefined;
  const twin = d.distUrl + bare.slice(d.srcUrl.length).replace(/ts$/, 'js');
  return existsSync(fileURLToPath(twin)) ? twin : undefined;
}

export const resolve: ResolveHook = async (specifier, context, nextResolve) => {
  const resolved = await nextResolve(specifier, context);
  const twin = data === undefined ? undefined : compiledTwin(resolved.url, data);
  if (twin !== undefined) return { url: twin, format: 'module', shortCircuit: true };
  // A strategy is an ES module (`export default defineStrategy(…)`), even in a folder without a
  // package.json saying `"type": "module"`, where tsx would compile it as CommonJS.
  if (/^file:.*\.ts(?:[?#]|$)/.test(resolved.url)) return { ...resolved, format: 'module' };
  return resolved;
};
