// Compiles src/ (TypeScript) to dist/ (JavaScript), one output file per source file, so the CLI and
// the sweep workers start without a TypeScript loader. Run by `npm ci`/`npm install` (the `prepare`
// script) and by `npm run build`; bin/capibot.js also calls it when src/ changed since the last build.
//
// Staleness: dist/.build-stamp.json records the newest mtime and the number of entries (files and
// folders) under src/, plus this script's own mtime, taken before the build started. The build is
// fresh when the same figures are measured now; any edit, added, removed or renamed file (its folder's
// mtime changes) or an older file put back (the newest mtime differs) makes it stale.
//
// This file is plain JavaScript on purpose: it runs before anything is compiled.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  copyFileSync,
} from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = '.build-stamp.json';

/** Newest mtime (ms) and entry count under `dir` (the folder itself included); its files into `files`. */
function scan(dir, acc = { newest: 0, entries: 0 }, files = undefined) {
  const st = statSync(dir);
  if (st.mtimeMs > acc.newest) acc.newest = st.mtimeMs;
  acc.entries++;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      scan(path, acc, files);
      continue;
    }
    const m = statSync(path).mtimeMs;
    if (m > acc.newest) acc.newest = m;
    acc.entries++;
    files?.push(path);
  }
  return acc;
}

function stateOf(root, files = undefined) {
  const src = scan(join(root, 'src'), undefined, files);
  const self = statSync(fileURLToPath(import.meta.url)).mtimeMs;
  return { srcNewestMs: src.newest, srcEntries: src.entries, builderMs: self };
}

/** True when `root`/dist holds a build of the current `root`/src (a few ms: one stat per entry). */
export function isBuildFresh(root = ROOT) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, 'dist', STAMP), 'utf8'));
  } catch {
    return false;
  }
  const state = stateOf(root);
  return (
    stamp !== null &&
    typeof stamp === 'object' &&
    stamp.srcNewestMs === state.srcNewestMs &&
    stamp.srcEntries === state.srcEntries &&
    stamp.builderMs === state.builderMs
  );
}

/**
 * RxJS's entry points that dist/ imports from its own copy of RxJS's ES2015 build (`vendorRxjs`),
 * by specifier: the file under dist/vendor/ that stands for it.
 *
 * Why: Node resolves `rxjs` to RxJS's ES5 CommonJS build (the package's `node` condition), where
 * every `for…of` is a helper that allocates an iterator and a result object per step. A backtest pushes each ticker, order update and fill through
 * Subjects and operators: with the ES2015 build a quiet poll costs about a quarter fewer
 * instructions, and 20,000 polls of sma-cross 8 % fewer in all (BENCHMARKS.md).
 * Same version, same source, compiled for a newer target: the behaviour is RxJS's own.
 */
export const VENDORED_RXJS = {
  rxjs: { file: 'vendor/rxjs.js', esm: 'index.js' },
  'rxjs/operators': { file: 'vendor/rxjs-operators.js', esm: 'operators/index.js' },
  'rxjs/testing': { file: 'vendor/rxjs-testing.js', esm: 'testing/index.js' },
};

/**
 * What dist/ vendors, as the build wrote it: JSON, specifier → file under dist/. The compiled CLI's
 * strategy bundler reads it (src/strategy/compile-strategy.ts) to give strategies the same modules.
 */
export const VENDORED_LIST = 'vendor/vendored.json';

/** A relative import specifier from the dist/ file built from `importer` to `distFile` (under dist/). */
function fromOutputOf(importer, srcDir, outDir, distFile) {
  const outputDir = join(outDir, relative(srcDir, dirname(importer)));
  const rel = relative(outputDir, join(outDir, distFile)).split(sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/**
 * `./x.ts` → `./x.js` for relative imports; RxJS → dist/vendor/ (VENDORED_RXJS); everything else
 * stays an import of its own file.
 */
function rewriteImports(srcDir, outDir) {
  return {
    name: 'capibot-rewrite-imports',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        const vendored = VENDORED_RXJS[args.path];
        if (vendored !== undefined)
          return { path: fromOutputOf(args.importer, srcDir, outDir, vendored.file), external: true };
        const relativeTs = /^\.\.?\//.test(args.path) && /\.[cm]?ts$/.test(args.path);
        return { path: relativeTs ? args.path.replace(/ts$/, 'js') : args.path, external: true };
      });
    },
  };
}

/**
 * Bundles RxJS's ES2015 build (`dist/esm`, which Node cannot load as it is: its imports have no file
 * extensions) into dist/vendor/: one module per entry point of VENDORED_RXJS, their shared code in
 * chunks, so all three hold the same classes and the same schedulers (TestScheduler patches them).
 */
async function vendorRxjs(esbuild, root, outDir) {
  const require = createRequire(join(root, 'package.json'));
  const esm = join(dirname(require.resolve('rxjs/package.json')), 'dist', 'esm');
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(
      Object.values(VENDORED_RXJS).map((v) => [v.file.replace(/\.js$/, ''), join(esm, v.esm)]),
    ),
    outdir: outDir,
    chunkNames: 'vendor/chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    write: false,
  });
  for (const f of result.outputFiles) writeAtomically(f.path, f.contents);
  const list = Object.fromEntries(Object.entries(VENDORED_RXJS).map(([name, v]) => [name, v.file]));
  writeAtomically(join(outDir, VENDORED_LIST), `${JSON.stringify(list)}\n`);
  return result.outputFiles.length + 1;
}

/** Writes `text` to `path` through a temporary file: a concurrent reader sees the old or the new file. */
function writeAtomically(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

/**
 * Builds `root`/src into `root`/dist. `clean` empties dist first (the npm scripts do; the automatic
 * rebuild does not, so a process running from dist never loses a file under it). Returns the number
 * of files written.
 */
export async function build(root = ROOT, { clean = false } = {}) {
  const { build: esbuild } = await import('esbuild');
  const srcDir = join(root, 'src');
  const outDir = join(root, 'dist');
  // Measured before compiling: an edit made during the build leaves the stamp stale.
  const files = [];
  const state = stateOf(root, files);
  if (clean) rmSync(outDir, { recursive: true, force: true });
  const sources = files.filter((f) => f.endsWith('.ts'));
  const result = await esbuild({
    absWorkingDir: root,
    entryPoints: sources,
    outbase: srcDir,
    outdir: outDir,
    bundle: true,
    plugins: [rewriteImports(srcDir, outDir)],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'silent',
    write: false,
  });
  for (const f of result.outputFiles) writeAtomically(f.path, f.contents);
  const vendored = await vendorRxjs(esbuild, root, outDir);
  // Other files (the report page script) are read at run time next to the module that uses them.
  let copied = 0;
  for (const f of files) {
    if (f.endsWith('.ts')) continue;
    const to = join(outDir, relative(srcDir, f));
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(f, `${to}.${process.pid}.tmp`);
    renameSync(`${to}.${process.pid}.tmp`, to);
    copied++;
  }
  writeAtomically(join(outDir, STAMP), `${JSON.stringify(state)}\n`);
  return result.outputFiles.length + vendored + copied;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // `npm ci` of the dependencies alone (deploy/Dockerfile's first stage) has no src/ to build yet.
  if (!existsSync(join(ROOT, 'src'))) {
    process.stderr.write('capibot: no src/ folder: nothing to build\n');
    process.exit(0);
  }
  const started = performance.now();
  const count = await build(ROOT, { clean: true });
  const ms = Math.round(performance.now() - started);
  process.stderr.write(`capibot: built src${sep} → dist${sep} (${count} files, ${ms} ms)\n`);
}
