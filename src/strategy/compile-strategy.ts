// How the compiled CLI (dist/) imports a TypeScript strategy: esbuild bundles the strategy file and
// its own helper files into one ES module, written to a cache file named by its content, and that
// file is imported. No TypeScript loader and no module-hooks thread: a fraction of tsx's start-up.
//
// Its imports are kept external and point where the running process already loads from:
//  - a capibot source file (`../src/strategy/index.ts`, or any file under src/) → its compiled twin
//    under dist/, the very module the CLI runs: one copy of the framework, so `instanceof` and
//    module state hold across the strategy and the host (a second copy from src/ would break them);
//  - a package dist/ vendors (RxJS: `rxjs`, `rxjs/operators`, `rxjs/testing`) → the file dist/
//    imports for it (dist/vendor/vendored.json, written by scripts/build.js): one RxJS for both;
//  - any other package → the file Node itself would load for it (the `import` and `node`
//    conditions), so the strategy and capibot share zod, …;
//  - node: builtins as they are.
// Source maps are inline and enabled, so a strategy's stack frames name its own .ts lines.
// A manifest per strategy file lists the bundle's input files with their mtimes: while none changed,
// the cached bundle is imported without starting esbuild at all.
// import.meta.url (dirname, filename) in the bundle is the strategy file's, not the cache file's.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';

/** The folders of a compiled capibot: src/ and the dist/ built from it. */
export interface CapibotFolders {
  readonly srcDir: string;
  readonly distDir: string;
}

/** The folders of the capibot this module belongs to (dist/strategy/ → dist/, ../src/). */
export function ownFolders(): CapibotFolders {
  return {
    srcDir: fileURLToPath(new URL('../../src/', import.meta.url)),
    distDir: fileURLToPath(new URL('../', import.meta.url)),
  };
}

/** The dist/ file compiled from a src/ TypeScript file, or undefined for any other path. */
export function compiledTwin(path: string, f: CapibotFolders): string | undefined {
  if (!path.startsWith(f.srcDir) || !/\.[cm]?ts$/.test(path)) return undefined;
  const twin = join(f.distDir, relative(f.srcDir, path)).replace(/ts$/, 'js');
  return existsSync(twin) ? twin : undefined;
}

const RESOLVING = Symbol('capibot.resolving');

/** The list of what dist/ vendors, under dist/ (scripts/build.js VENDORED_LIST). */
const VENDORED_LIST = join('vendor', 'vendored.json');
const vendoredLists = new Map<string, ReadonlyMap<string, string>>();

/**
 * The dist/ file that stands for a package specifier dist/ vendors (`rxjs` → dist/vendor/rxjs.js),
 * as the build listed it; undefined for any other specifier, or when there is no such list (src/).
 */
export function vendoredModule(specifier: string, f: CapibotFolders): string | undefined {
  let list = vendoredLists.get(f.distDir);
  if (list === undefined) {
    let raw: unknown = {};
    try {
      raw = JSON.parse(readFileSync(join(f.distDir, VENDORED_LIST), 'utf8'));
    } catch {
      // No list (running from src/, or a dist/ built before vendoring): nothing is vendored.
    }
    const entries = typeof raw === 'object' && raw !== null ? Object.entries(raw) : [];
    list = new Map(
      entries.flatMap(([name, file]) => (typeof file === 'string' ? [[name, join(f.distDir, file)]] : [])),
    );
    vendoredLists.set(f.distDir, list);
  }
  return list.get(specifier);
}

/** See the top of this file; records each bundled file's mtime, taken before esbuild reads it. */
function externals(f: CapibotFolders, inputs: Record<string, number>): Plugin {
  return {
    name: 'capibot-strategy-externals',
    setup(b) {
      b.onLoad({ filter: /.*/ }, (args) => {
        inputs[args.path] = statSync(args.path).mtimeMs;
        return undefined;
      });
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData === RESOLVING) return undefined;
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        const vendored = vendoredModule(args.path, f);
        if (vendored !== undefined) return { path: pathToFileURL(vendored).href, external: true };
        const r = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: RESOLVING,
        });
        if (r.errors.length > 0 || r.external) return undefined;
        const twin = compiledTwin(r.path, f);
        if (twin !== undefined) return { path: pathToFileURL(twin).href, external: true };
        if (r.path.includes(`${sep}node_modules${sep}`))
          return { path: pathToFileURL(r.path).href, external: true };
        return { path: r.path };
      });
    },
  };
}

function atomicWrite(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

/**
 * The form of the bundles a manifest may name: a manifest of another (or no) version is ignored and
 * its strategy bundled again. 2: RxJS resolves to dist/vendor/ (a bundle of version 1 imports Node's
 * build of RxJS, a second copy beside the host's).
 */
const MANIFEST_VERSION = 2;

interface Manifest {
  readonly version: number;
  /** The bundle file (in the cache folder). */
  readonly bundle: string;
  /** Every input file of the bundle and its mtime (ms). */
  readonly inputs: Readonly<Record<string, number>>;
}

/** The cached bundle of a manifest whose inputs are all unchanged, else undefined. */
function cachedBundle(manifestPath: string): string | undefined {
  try {
    const m = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
    if (m.version !== MANIFEST_VERSION) return undefined;
    for (const [path, mtime] of Object.entries(m.inputs))
      if (statSync(path).mtimeMs !== mtime) return undefined;
    return existsSync(m.bundle) ? m.bundle : undefined;
  } catch {
    return undefined;
  }
}

/** Bundles `file` (see the top of this file), or reuses its unchanged bundle, and imports it. */
export async function importCompiledStrategy(
  file: string,
  f: CapibotFolders = ownFolders(),
): Promise<unknown> {
  const url = pathToFileURL(file).href;
  const cacheDir = join(tmpdir(), `capibot-strategies-${process.getuid?.() ?? 'user'}`);
  const manifestPath = join(cacheDir, `${createHash('sha256').update(url).digest('hex').slice(0, 24)}.json`);
  process.setSourceMapsEnabled(true);
  const cached = cachedBundle(manifestPath);
  if (cached !== undefined) return import(pathToFileURL(cached).href);

  const { build } = await import('esbuild');
  const inputs: Record<string, number> = {};
  const result = await build({
    entryPoints: [file],
    bundle: true,
    write: false,
    outfile: join(cacheDir, 'strategy.mjs'),
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // As Node resolves: no `module` condition, no `module` main field.
    conditions: [],
    mainFields: ['main'],
    sourcemap: 'inline',
    logLevel: 'silent',
    define: {
      'import.meta.url': JSON.stringify(url),
      'import.meta.filename': JSON.stringify(file),
      'import.meta.dirname': JSON.stringify(dirname(file)),
    },
    plugins: [externals(f, inputs)],
  });
  const code = result.outputFiles[0]?.contents;
  if (code === undefined) throw new Error('esbuild produced no output');
  const hash = createHash('sha256').update(url).update(code).digest('hex').slice(0, 24);
  const out = join(cacheDir, `${hash}.mjs`);
  try {
    mkdirSync(cacheDir, { recursive: true });
    if (!existsSync(out)) atomicWrite(out, code);
    atomicWrite(
      manifestPath,
      JSON.stringify({ version: MANIFEST_VERSION, bundle: out, inputs } satisfies Manifest),
    );
  } catch {
    // No writable temporary folder: the bundle imports as well from a data: URL (every import in
    // it is absolute), only uncached.
    return import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  }
  return import(pathToFileURL(out).href);
}
