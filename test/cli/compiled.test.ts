// The binary runs compiled JavaScript (dist/, built by scripts/build.js) and never stale code: a
// src/ changed after the build is rebuilt before it runs. `--help` loads no command module and none
// of their heavy dependencies; a command's `--help` loads its definition only. A strategy loaded by the compiled CLI shares its framework modules
// (its `../src/…` imports resolve to dist/), so capibot's own errors keep their identity.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.ts';
import { CLI, cleanEnv, REPO, tempDir } from '../ops/helpers.ts';
import { rmSync } from 'node:fs';

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function node(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): Promise<Result> {
  return new Promise((done) => {
    execFile(process.execPath, [...args], { cwd, env }, (err, stdout, stderr) => {
      done({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Packages no help text needs: the store, the HTTP client, logging, schemas, streams, Redis, Parquet. */
const HEAVY = [
  'better-sqlite3',
  'undici',
  'pino',
  'zod',
  'yaml',
  'tsx',
  'rxjs',
  'ioredis',
  'bullmq',
  'hyparquet',
] as const;

/** Runs the compiled CLI with `args`, logging every module it resolves; the log as one string. */
async function withModuleLog(args: readonly string[]): Promise<{ result: Result; loaded: string }> {
  const dir = tempDir('capibot-help-');
  dirs.push(dir);
  const log = join(dir, 'modules.txt');
  const hooks = join(dir, 'hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\n` +
      `export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }\n`,
  );
  const register = join(dir, 'register.mjs');
  writeFileSync(
    register,
    `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
  );
  const result = await node(['--import', pathToFileURL(register).href, CLI, ...args], REPO);
  return { result, loaded: readFileSync(log, 'utf8') };
}

/** A copy of the checkout (bin, scripts, src, package.json; node_modules linked) with no dist/. */
function checkoutCopy(): string {
  const dir = tempDir('capibot-compiled-');
  dirs.push(dir);
  for (const d of ['bin', 'scripts', 'src']) cpSync(join(REPO, d), join(dir, d), { recursive: true });
  cpSync(join(REPO, 'package.json'), join(dir, 'package.json'));
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** The RxJS identity fixture (test/fixtures/strategies/rxjs-identity.ts): one order when its RxJS is the host's. */
const RXJS_IDENTITY = join(REPO, 'test/fixtures/strategies/rxjs-identity.ts');

/** `capibot backtest --strategy RXJS_IDENTITY` into `dir`; the process result and the orders it placed. */
async function identityBacktest(dir: string, env?: NodeJS.ProcessEnv): Promise<Result & { orders?: number }> {
  const r = await node(
    [CLI, 'backtest', '--strategy', RXJS_IDENTITY, '--json', '--out', join(dir, 'out')],
    REPO,
    env,
  );
  if (r.code !== 0) return r;
  return {
    ...r,
    orders: (JSON.parse(r.stdout) as { summary: { ordersPlaced: number } }).summary.ordersPlaced,
  };
}

describe('the compiled CLI', () => {
  it('builds dist/ when missing, rebuilds it when src/ changed, and runs the fresh code', async () => {
    const dir = checkoutCopy();
    const bin = join(dir, 'bin', 'capibot.js');
    const stamp = join(dir, 'dist', '.build-stamp.json');

    const first = await node([bin, '--help'], dir);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('Strategy runner for the WEEX contract API');
    const built = statSync(stamp).mtimeMs;

    // Unchanged src/: the build is reused.
    expect((await node([bin, '--help'], dir)).code).toBe(0);
    expect(statSync(stamp).mtimeMs).toBe(built);

    // An edited file: the next start rebuilds and runs the new text.
    const main = join(dir, 'src', 'cli', 'main.ts');
    writeFileSync(
      main,
      readFileSync(main, 'utf8').replace('Strategy runner for the WEEX', 'Freshly built runner for the WEEX'),
    );
    const second = await node([bin, '--help'], dir);
    expect(second.stdout).toContain('Freshly built runner for the WEEX');
    expect(statSync(stamp).mtimeMs).toBeGreaterThan(built);

    // A new file under src/ (even one with an old mtime) makes the build stale too.
    const rebuilt = statSync(stamp).mtimeMs;
    mkdirSync(join(dir, 'src', 'extra'));
    writeFileSync(join(dir, 'src', 'extra', 'note.ts'), 'export const note = 1;\n');
    expect((await node([bin, '--version'], dir)).code).toBe(0);
    expect(statSync(stamp).mtimeMs).toBeGreaterThan(rebuilt);
    expect(readFileSync(join(dir, 'dist', 'extra', 'note.js'), 'utf8')).toContain('note = 1');

    // CAPIBOT_FROM_SOURCE=1 runs the TypeScript sources (no build).
    writeFileSync(main, readFileSync(main, 'utf8').replace('Freshly built runner', 'Source-run runner'));
    const fromSource = await node([bin, '--help'], dir, cleanEnv({ CAPIBOT_FROM_SOURCE: '1' }));
    expect(fromSource.stdout).toContain('Source-run runner for the WEEX');
    expect(readFileSync(join(dir, 'dist', 'cli', 'main.js'), 'utf8')).not.toContain('Source-run');
  });

  it('--help loads no command module and none of their heavy dependencies', async () => {
    const { result: r, loaded } = await withModuleLog(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}backtest \[options\] /m);
    expect(loaded).toContain('/dist/cli/main.js');
    for (const heavy of ['/cli/commands/backtest.', '/cli/commands/run.', ...HEAVY])
      expect(loaded, heavy).not.toContain(heavy);
  });

  // A command's own help loads its definition only: what it does (its *-run module, the engine, the
  // store, the client) is imported when it runs.
  it.each(COMMANDS.map((c) => c.name))(
    '%s --help loads its definition and none of the heavy modules',
    async (name) => {
      const { result: r, loaded } = await withModuleLog([name, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: capibot ${name}`);
      expect(loaded).toContain(`/dist/cli/commands/${name}.js`);
      for (const heavy of ['-run.js', '/dist/engine/', '/dist/store/', '/dist/backtest/run-', ...HEAVY])
        expect(loaded, heavy).not.toContain(heavy);
    },
  );

  it("a strategy's src/ imports resolve to the running dist/ modules (one ConfigError class)", async () => {
    const dir = tempDir('capibot-shared-');
    dirs.push(dir);
    const config = join(dir, 'shared.yaml');
    writeFileSync(
      config,
      `mode: paper\nstrategies:\n  - id: shared\n    file: ${join(REPO, 'test/fixtures/strategies/shared-framework.ts')}\n`,
    );
    const r = await node([CLI, 'validate', '--config', config], REPO);
    // Caught by the host as its own ConfigError: a config problem at the strategy's params.
    expect(r.stderr).toMatch(
      /^capibot: error \[CONFIG\] .*strategies\[0\]\.params: shared-framework: thrown by the strategy/m,
    );
    expect(r.code).toBe(2);
  });

  it("a strategy's rxjs is the running dist/'s own copy (one Observable class)", async () => {
    const dir = tempDir('capibot-rxjs-');
    dirs.push(dir);
    // dist/ imports RxJS's ES2015 build from dist/vendor/ (scripts/build.js), never Node's copy.
    const engine = readFileSync(join(REPO, 'dist/engine/engine.js'), 'utf8');
    expect(engine).toMatch(/from "\.\.\/vendor\/rxjs\.js"/);
    expect(engine).not.toMatch(/from "rxjs"/);
    const r = await identityBacktest(dir);
    expect(r.code).toBe(0);
    // The fixture places its one order only when tickers$ is an instance of its own Observable.
    expect(r.orders).toBe(1);
  });

  it('bundles a strategy again when its cached manifest is of an older form', async () => {
    // A manifest written before RxJS was vendored (no version) names a bundle that would import
    // Node's RxJS: it must not be reused, although the strategy's files are unchanged.
    const dir = tempDir('capibot-old-manifest-');
    dirs.push(dir);
    const file = RXJS_IDENTITY;
    const cache = join(dir, `capibot-strategies-${process.getuid?.() ?? 'user'}`);
    mkdirSync(cache, { recursive: true });
    const stale = join(cache, 'stale.mjs');
    writeFileSync(stale, 'throw new Error("the stale bundle was imported");\n');
    const key = createHash('sha256').update(pathToFileURL(file).href).digest('hex').slice(0, 24);
    writeFileSync(
      join(cache, `${key}.json`),
      JSON.stringify({ bundle: stale, inputs: { [file]: statSync(file).mtimeMs } }),
    );
    const r = await identityBacktest(dir, cleanEnv({ TMPDIR: dir }));
    expect(r.stderr).not.toContain('stale bundle');
    expect(r.code).toBe(0);
    expect(r.orders).toBe(1);
  });

  it("reuses a strategy's cached bundle only while none of its files changed", async () => {
    const dir = tempDir('capibot-strategy-cache-');
    dirs.push(dir);
    const api = join(REPO, 'src/strategy/index.ts');
    writeFileSync(join(dir, 'helper.ts'), 'export const symbol: string = "cmt_btcusdt";\n');
    writeFileSync(
      join(dir, 'cached.ts'),
      `import { defineStrategy, z } from ${JSON.stringify(api)};\nimport { symbol } from './helper.ts';\n` +
        `export default defineStrategy({ name: 'cached', version: '1', params: z.strictObject({}), ` +
        `symbols: () => [symbol], create: () => ({ onTicker: () => [] }) });\n`,
    );
    const config = join(dir, 'cached.yaml');
    writeFileSync(config, `mode: paper\nstrategies:\n  - id: cached\n    file: ${join(dir, 'cached.ts')}\n`);
    const validate = () => node([CLI, 'validate', '--config', config], REPO);
    expect((await validate()).code).toBe(0);
    expect((await validate()).code).toBe(0);
    // The helper (not the strategy file itself) changes: the next load sees it.
    writeFileSync(join(dir, 'helper.ts'), 'export const symbol: string = "";\n');
    const changed = await validate();
    expect(changed.stderr).toContain('bad symbol ""');
    expect(changed.code).toBe(2);
  });
});
