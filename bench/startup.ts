// `node bin/run-ts.js bench/startup.ts [--runs 5] [--before DIR]`: start-up wall time of the CLI,
// median of N fresh processes each: `capibot --help`, `capibot backtest --help`, `capibot kill --help`,
// `capibot validate --config config/example.yaml`, and one sweep worker from `new Worker()` to its
// first reply (a job that fails at once). With --before DIR (another checkout, e.g. `git worktree add
// DIR <commit>`), the same is measured there, interleaved run by run so both see the same machine
// load. `node -e 0` is the floor.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '5' }, before: { type: 'string' } },
});
const runs = Number(values.runs);
const HERE = resolve(import.meta.dirname, '..');
const TSX = import.meta.resolve('tsx/esm/api');
const TMP = mkdtempSync(join(tmpdir(), 'capibot-startup-'));

/** A worker start in checkout `root`: compiled (dist/) when it has one, else through tsx as before. */
function workerScript(root: string): string {
  const dist = join(root, 'dist/backtest/sweep/worker.js');
  const compiled = existsSync(dist);
  const boot = compiled
    ? `new URL(${JSON.stringify(`file://${dist}`)})`
    : `new URL('data:text/javascript,' + encodeURIComponent(${JSON.stringify(
        `import { register } from ${JSON.stringify(TSX)}; register(); ` +
          `await import(${JSON.stringify(`file://${join(root, 'src/backtest/sweep/worker.ts')}`)});`,
      )}))`;
  return (
    `import { Worker } from 'node:worker_threads';\n` +
    `const t = performance.now(); const w = new Worker(${boot});\n` +
    `w.postMessage({ kind: 'job', index: 1, configPath: '/nonexistent.yaml' });\n` +
    `w.once('message', () => { process.stdout.write(String(performance.now() - t)); void w.terminate(); });\n`
  );
}

interface Case {
  readonly name: string;
  /** Milliseconds of one run in checkout `root`. */
  readonly run: (root: string) => number;
}

function wall(root: string, args: readonly string[]): number {
  const t = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`${args.join(' ')} in ${root}: exit ${r.status}`);
  return performance.now() - t;
}

const CASES: readonly Case[] = [
  { name: 'node -e 0', run: (root) => wall(root, ['-e', '0']) },
  { name: 'capibot --help', run: (root) => wall(root, ['bin/capibot.js', '--help']) },
  { name: 'capibot backtest --help', run: (root) => wall(root, ['bin/capibot.js', 'backtest', '--help']) },
  { name: 'capibot kill --help', run: (root) => wall(root, ['bin/capibot.js', 'kill', '--help']) },
  {
    name: 'capibot validate --config config/example.yaml',
    run: (root) => wall(root, ['bin/capibot.js', 'validate', '--config', 'config/example.yaml']),
  },
  {
    name: 'sweep worker start (to its first reply)',
    run: (root) => {
      const script = join(TMP, 'worker-start.mjs');
      writeFileSync(script, workerScript(root));
      return Number(execFileSync(process.execPath, [script], { cwd: root, encoding: 'utf8' }));
    },
  },
];

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? NaN;
}

const roots = values.before !== undefined ? [resolve(values.before), HERE] : [HERE];
console.log(`| | ${roots.map((r) => (r === HERE ? 'this checkout' : `before (${r})`)).join(' | ')} |`);
console.log(`|---|${roots.map(() => '---:').join('|')}|`);
for (const c of CASES) {
  const times = roots.map((): number[] => []);
  for (const root of roots) c.run(root); // warm-up: disk caches, a stale build, a strategy's bundle
  for (let i = 0; i < runs; i++) roots.forEach((root, k) => times[k]?.push(c.run(root)));
  console.log(`| ${c.name} | ${times.map((t) => `${Math.round(median(t))} ms`).join(' | ')} |`);
}
