// The Redis of a distributed sweep: `--queue redis://[user:password@]HOST:PORT[/db]` (rediss:// for
// TLS), checked before anything is queued so an unreachable server is one clear error rather than
// a sweep that waits forever. BullMQ gets the URL and opens its own connections (through the
// project's ioredis, its peer dependency).
import { Redis } from 'ioredis';
import { BadInputError, TransportError } from '../../../core/errors.ts';
import { safeUrl } from './safe-url.ts';

export interface QueueConnection {
  readonly url: string;
}

/** The --queue value, checked: a redis:// or rediss:// URL with a host. */
export function queueConnection(url: string, flag = '--queue'): QueueConnection {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new BadInputError(`not a URL: expected redis://HOST:PORT`, flag);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw new BadInputError(`expected a redis:// or rediss:// URL, got ${parsed.protocol}//`, flag);
  if (parsed.hostname === '') throw new BadInputError('the URL names no host', flag);
  return { url };
}

/** Resolves once Redis answers a PING; a TransportError after `timeoutMs` without an answer. */
export async function probeRedis(c: QueueConnection, timeoutMs = 5_000): Promise<void> {
  const redis = new Redis(c.url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new TransportError(`cannot reach Redis at ${safeUrl(c.url)}: ${why}`, 'sweep queue');
  } finally {
    redis.disconnect();
  }
}
