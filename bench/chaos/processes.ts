// Child processes of a chaos run: one `capibot sim` and the successive `capibot run`s, each started
// through bin/capibot.js in its own node process (SIGKILL ends the runner itself, no wrapper between).
// Output goes to files in the run's directory; nothing is inherited from the terminal.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { createInterface } from 'node:readline';

const CAPIBOT = 'bin/capibot.js';

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface Child {
  readonly process: ChildProcess;
  readonly pid: number;
  /** Resolves once the process has exited and been reaped (its pid names nobody any more). */
  readonly exited: Promise<Exit>;
}

/** The environment of the children: no credentials (both sides use the sim's test credentials). */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CAPIBOT_')) delete env[k];
  return env;
}

function track(p: ChildProcess): Child {
  if (p.pid === undefined) throw new Error('the child process did not start');
  const exited = new Promise<Exit>((resolve) => {
    p.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { process: p, pid: p.pid, exited };
}

export interface SimOptions {
  readonly data: string;
  readonly faults: string;
  readonly seed: number;
  readonly speed: number;
  /** stderr (warnings and the sim's final stats line). */
  readonly logFile: string;
}

export interface SimChild extends Child {
  readonly url: string;
}

/** Starts `capibot sim --clock realtime` and waits for its `sim listening on URL` line. */
export async function startSim(o: SimOptions): Promise<SimChild> {
  const err = openSync(o.logFile, 'a');
  const p = spawn(
    process.execPath,
    [
      CAPIBOT,
      'sim',
      '--data',
      o.data,
      '--clock',
      'realtime',
      '--speed',
      String(o.speed),
      '--faults',
      o.faults,
      '--seed',
      String(o.seed),
      '--port',
      '0',
      '--log-level',
      'warn',
    ],
    { env: childEnv(), stdio: ['ignore', 'pipe', err] },
  );
  closeSync(err);
  const child = track(p);
  const stdout = p.stdout;
  if (stdout === null) throw new Error('no stdout from capibot sim');
  const lines = createInterface({ input: stdout });
  const url = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      const m = /^sim listening on (http:\/\/[^\s]+)$/.exec(line);
      if (m?.[1] !== undefined) resolve(m[1]);
    });
    void child.exited.then((e) =>
      reject(
        new Error(
          `capibot sim exited before listening (code ${e.code}, signal ${e.signal}); see ${o.logFile}`,
        ),
      ),
    );
  });
  return { ...child, url };
}

export interface RunnerOptions {
  readonly config: string;
  /** Graceful stop after this long (the settle run). */
  readonly durationS?: number;
  /** stdout and stderr of the runner (its pino log goes to the config's log.file). */
  readonly outFile: string;
}

export function startRunner(o: RunnerOptions): Child {
  const out = openSync(o.outFile, 'a');
  const args = [CAPIBOT, 'run', '--config', o.config];
  if (o.durationS !== undefined) args.push('--duration-s', String(o.durationS));
  const p = spawn(process.execPath, args, { env: childEnv(), stdio: ['ignore', out, out] });
  closeSync(out);
  return track(p);
}

/** Sends `signal` unless the child already exited; resolves when it has exited. */
export async function stop(child: Child, signal: NodeJS.Signals): Promise<Exit> {
  if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill(signal);
  return child.exited;
}

/** Resolves after `ms`, or with the exit when the child ends first. */
export async function exitWithin(child: Child, ms: number): Promise<Exit | 'running'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'running'>((resolve) => {
    timer = setTimeout(() => resolve('running'), Math.max(0, ms));
  });
  try {
    return await Promise.race([child.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
