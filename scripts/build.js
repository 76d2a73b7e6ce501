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

/** `./x.ts` → `./x.js` for relative imports; everything stays an import of its own file. */
const rewriteImports = {
  name: 'capibot-rewrite-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const relativeTs = /^\.\.?\//.test(args.path) && /\.[cm]?ts$/.test(args.path);
      return { path: relativeTs ? args.path.replace(/ts$/, 'js') : args.path, external: true };
    });
  },
};

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
    plugins: [rewriteImports],
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'silent',
    write: false,
  });
  for (const f of result.outputFiles) writeAtomically(f.path, f.contents);
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
  return result.outputFiles.length + copied;
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
