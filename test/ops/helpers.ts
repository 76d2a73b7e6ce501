// Child processes of the operator tests: `capibot sim`, `capibot run`, one-shot commands, and configs
// written to a temporary directory.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Command, CommanderError } from 'commander';
import { request } from 'undici';
import type { RegisterCommand } from '../../src/cli/command.ts';
import { reportError, type CliOutput } from '../../src/cli/output.ts';

export const REPO = resolve(import.meta.dirname, '../..');
export const CLI = join(REPO, 'bin/capibot.js');
export const IDLE_STRATEGY = join(REPO, 'test/ops/fixtures/idle.ts');

/** The environment of the current process without any capibot credential. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env['CAPIBOT_API_KEY'];
  delete env['CAPIBOT_API_SECRET'];
  delete env['CAPIBOT_API_PASSPHRASE'];
  return { ...env, ...extra };
}

export function tempDir(prefix = 'capibot-ops-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writeConfig(dir: string, yaml: string, name = 'capibot.yaml'): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}

export interface Done {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `capibot ARGS` to completion. */
export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv = cleanEnv()): Promise<Done> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return { code, signal, stdout, stderr };
}

export interface Running {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves at the first stdout or stderr line matching `re` (its match), rejects if the process exits. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Sends `signal` and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Done>;
  readonly exited: Promise<Done>;
}

/** Starts `capibot ARGS` in the background. */
export function startCli(args: readonly string[], env: NodeJS.ProcessEnv = cleanEnv()): Running {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const lines: string[] = [];
  const waiters: { re: RegExp; resolve: (m: RegExpExecArray) => void }[] = [];
  const onLine = (line: string): void => {
    lines.push(line);
    for (const w of [...waiters]) {
      const m = w.re.exec(line);
      if (m !== null) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  };
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  if (child.stdout) createInterface({ input: child.stdout }).on('line', onLine);
  if (child.stderr) createInterface({ input: child.stderr }).on('line', onLine);
  const exited = once(child, 'exit').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
    stdout: out,
    stderr: err,
  }));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (re, timeoutMs = 20_000) =>
      new Promise<RegExpExecArray>((resolveWait, reject) => {
        for (const line of lines) {
          const m = re.exec(line);
          if (m !== null) return resolveWait(m);
        }
        const timer = setTimeout(
          () => reject(new Error(`timed out waiting for ${re}\nstdout:\n${out}\nstderr:\n${err}`)),
          timeoutMs,
        );
        waiters.push({
          re,
          resolve: (m) => {
            clearTimeout(timer);
            resolveWait(m);
          },
        });
        void exited.then((d) => {
          clearTimeout(timer);
          reject(new Error(`exited (${d.code ?? d.signal}) before ${re}\nstdout:\n${out}\nstderr:\n${err}`));
        });
      }),
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface Sim {
  readonly url: string;
  readonly proc: Running;
}

/** `capibot sim` on a free port (lockstep by default: time moves with each tickers request). */
export async function startSim(
  extra: readonly string[] = [],
  data = 'test/fixtures/recordings/sim-small.ndjson',
  env: NodeJS.ProcessEnv = cleanEnv(),
): Promise<Sim> {
  const proc = startCli(['sim', '--data', data, '--port', '0', '--log-level', 'warn', ...extra], env);
  const m = await proc.waitFor(/^sim listening on (http:\/\/127\.0\.0\.1:\d+)$/);
  return { url: m[1] as string, proc };
}

export async function getJson(url: string): Promise<{ status: number; json: unknown; text: string }> {
  const r = await request(url);
  const text = await r.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: r.statusCode, json, text };
}

/** The wire rows of every order the simulator holds. */
export async function simOrders(
  url: string,
): Promise<{ client_oid?: string; order_id?: string; status: string }[]> {
  return (await getJson(`${url}/sim/v1/orders`)).json as { client_oid?: string; status: string }[];
}

/** Runs one command module in this process (no tsx start-up): what `capibot ARGS` would print and return. */
export async function runInProcess(
  register: RegisterCommand,
  args: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const out: CliOutput = {
    data: (t) => (stdout += `${t}\n`),
    json: (v) => (stdout += `${JSON.stringify(v, null, 2)}\n`),
    info: (t) => (stderr += `${t}\n`),
    error: (t) => (stderr += `${t}\n`),
  };
  let code = 0;
  const program = new Command('capibot').exitOverride().configureOutput({
    writeOut: (s) => (stdout += s),
    writeErr: (s) => (stderr += s),
  });
  register(program, { out, setExitCode: (c) => (code = c) });
  program.commands.forEach((c) => c.exitOverride());
  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return { code: 2, stdout, stderr };
    code = reportError(e, out);
  }
  return { code, stdout, stderr };
}

/**
 * Polls `probe` every 100 ms until it returns a value; past `timeoutMs` fails naming `what`, with the
 * runner's stderr (`context`) for the reader of the failure.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  context: () => string,
  timeoutMs = 15_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${context()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
