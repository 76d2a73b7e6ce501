// A real redis-server for tests (no mocks of Redis): started on a free loopback port with its own
// temporary directory, no persistence, killed at the end. A missing redis-server FAILS the tests
// that need it (CI installs Debian's `redis-server`, see .ci/run); set CAPIBOT_SKIP_REDIS=1 to skip
// them deliberately on a machine without it. $REDIS_SERVER_BIN overrides the binary.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';

export const SKIP_REDIS = process.env.CAPIBOT_SKIP_REDIS === '1';

export const REDIS_MISSING =
  'redis-server not found (looked at $REDIS_SERVER_BIN, PATH and /usr/bin/redis-server): install ' +
  "Debian's redis-server (`apt-get install -y redis-server`), or set CAPIBOT_SKIP_REDIS=1 to skip the Redis tests";

const isExecutable = (p: string): boolean => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

export function findRedisServer(): string | undefined {
  const fromEnv = process.env.REDIS_SERVER_BIN;
  if (fromEnv !== undefined && fromEnv !== '') return isExecutable(fromEnv) ? fromEnv : undefined;
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((d) => d !== '');
  return [...dirs.map((d) => join(d, 'redis-server')), '/usr/bin/redis-server'].find(isExecutable);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  /** SIGKILLs the server (its data is gone: no persistence). */
  kill(): Promise<void>;
  /** Starts a fresh server on the same port (after kill). */
  restart(): Promise<void>;
  /** Kills the server and removes its directory. */
  stop(): Promise<void>;
}

async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      return;
    } catch {
      probe.disconnect();
      await new Promise((r) => setTimeout(r, 25));
    }
  }
  throw new Error(`redis-server at ${url} did not come up`);
}

export async function startRedis(): Promise<RedisProcess> {
  const bin = findRedisServer();
  if (bin === undefined) throw new Error(REDIS_MISSING);
  const dir = await mkdtemp(join(tmpdir(), 'capibot-redis-'));
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const launch = async (): Promise<void> => {
    const c = spawn(
      bin,
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    child = c;
    await waitReady(url);
  };
  const kill = async (): Promise<void> => {
    const c = child;
    child = undefined;
    if (c === undefined || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    port,
    url,
    kill,
    restart: launch,
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * For a describe block: a redis-server started before its tests (when one is installed) and stopped
 * after them. The getter answers undefined when there is none (the tests then fail with REDIS_MISSING).
 */
export function redisForSuite(): () => RedisProcess | undefined {
  let server: RedisProcess | undefined;
  beforeAll(async () => {
    if (findRedisServer() !== undefined) server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => server;
}
