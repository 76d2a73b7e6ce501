// Runs the shared budget's Lua scripts: EVALSHA by the script's SHA-1, and EVAL (which also loads
// it) when Redis answers NOSCRIPT (first use, or a restarted or flushed Redis). Replies are parsed
// with zod: a Redis reply is untrusted input like any other.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { BadResponseError } from '../../core/errors.ts';

export interface LuaScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

export function luaScript(name: string, source: string): LuaScript {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

const isNoScript = (e: unknown): boolean => e instanceof Error && e.message.startsWith('NOSCRIPT');

/** Runs `script` over `keys` with `args`; the reply must be an array of strings. */
export async function runScript(
  redis: Redis,
  script: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<string[]> {
  let reply: unknown;
  try {
    reply = await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (e) {
    if (!isNoScript(e)) throw e;
    reply = await redis.eval(script.source, keys.length, ...keys, ...args);
  }
  const parsed = z.array(z.string()).safeParse(reply);
  if (!parsed.success) {
    throw new BadResponseError(`unexpected reply: ${parsed.error.message}`, `redis:${script.name}`, 'reply');
  }
  return parsed.data;
}
