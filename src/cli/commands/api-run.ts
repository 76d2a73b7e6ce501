// `capibot api`, run: the client of one call, and the --orders file of `api place` read and checked.
// The calls and their options: ./api.ts.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { BadInputError } from '../../core/errors.ts';
import { WeexClient } from '../../exchange/weex/client.ts';
import { requireCredentialsFromEnv } from '../../exchange/weex/credentials.ts';
import { parseLosslessJson } from '../../exchange/weex/lossless-json.ts';
import { placeEntrySchema, type WirePlaceEntry } from '../../exchange/weex/schemas.ts';
import { deepestIssue, pathText } from '../../exchange/weex/zod-issues.ts';
import type { CliContext } from '../command.ts';
import type { CommonOptions } from './api.ts';

function makeClient(opts: CommonOptions, signed: boolean): WeexClient {
  // Public calls (tickers) are sent without any credential header, so they do not read the env.
  const credentials = signed ? requireCredentialsFromEnv(process.env) : undefined;
  return new WeexClient({
    baseUrl: opts.baseUrl,
    timeouts: {
      connectMs: opts.timeoutMs,
      headersMs: opts.timeoutMs,
      bodyMs: opts.timeoutMs,
      totalMs: opts.timeoutMs,
    },
    // One request per call: no retry, so what is printed is the answer to exactly that request.
    retry: { maxAttempts: 1 },
    // Sign with the local clock; the server time is fetched only if the exchange answers 40008.
    serverTimeSync: 'on-40008',
    ...(credentials !== undefined ? { credentials } : {}),
  });
}

export async function runOnce(
  ctx: CliContext,
  opts: CommonOptions,
  signed: boolean,
  f: (c: WeexClient) => Promise<unknown>,
): Promise<void> {
  const client = makeClient(opts, signed);
  try {
    ctx.out.json(await f(client));
  } finally {
    await client.close();
  }
}

const ordersFileSchema = z.array(placeEntrySchema);

/** Reads and validates the --orders file: a JSON array of entries in wire field names. */
export async function readOrdersFile(file: string): Promise<WirePlaceEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw new BadInputError(`cannot read ${file} (${typeof code === 'string' ? code : 'error'})`, '--orders');
  }
  let json: unknown;
  try {
    json = parseLosslessJson(text);
  } catch (err) {
    throw new BadInputError(
      `${file} is not JSON: ${err instanceof Error ? err.message : String(err)}`,
      '--orders',
    );
  }
  const parsed = ordersFileSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const issue = first !== undefined ? deepestIssue(first) : { path: [], message: 'invalid' };
    throw new BadInputError(issue.message, `${file}: ${pathText(issue.path, 'orders')}`);
  }
  if (parsed.data.length < 1 || parsed.data.length > 20) {
    throw new BadInputError(`expected 1-20 entries, got ${parsed.data.length}`, '--orders');
  }
  return parsed.data;
}
