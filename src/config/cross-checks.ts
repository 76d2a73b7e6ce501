// Rules that involve more than one field. They run after every field is valid, and their messages
// point at the field the user most likely has to change.
import type { z } from 'zod';
import { ConfigSchema } from './schema.ts';
import { dec } from '../core/decimal.ts';

type Parsed = z.output<typeof ConfigSchema>;

const STRATEGY_FILE = /\.(ts|mts|js|mjs)$/;
const RECORDING_FILE = /\.(ndjson(\.gz)?|parquet)$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** True for the real exchange's hosts (the default base URL or any *.weex.com host). */
export function isRealExchangeUrl(u: string): boolean {
  const host = new URL(u).hostname.toLowerCase();
  return host === 'weex.com' || host.endsWith('.weex.com');
}

export function isLoopbackUrl(u: string): boolean {
  const host = new URL(u).hostname.toLowerCase();
  return LOOPBACK_HOSTS.has(host) || host.startsWith('127.');
}

function crossCheck(c: Parsed, ctx: z.RefinementCtx): void {
  // Messages are complete (they quote the offending value themselves where it helps).
  const issue = (path: (string | number)[], message: string): void => {
    ctx.addIssue({ code: 'custom', path, message, params: { complete: true } });
  };

  const firstIndex = new Map<string, number>();
  c.strategies.forEach((s, i) => {
    const seen = firstIndex.get(s.id);
    if (seen !== undefined)
      issue(
        ['strategies', i, 'id'],
        `expected a unique strategy id, got "${s.id}" again (first used by strategies[${seen}])`,
      );
    else firstIndex.set(s.id, i);
    if (!STRATEGY_FILE.test(s.file))
      issue(['strategies', i, 'file'], `expected a .ts or .js strategy file, got ${JSON.stringify(s.file)}`);
  });

  if (dec(c.risk.drawdownReducePct).gt(c.risk.drawdownHaltPct)) {
    issue(
      ['risk', 'drawdownReducePct'],
      `expected at most risk.drawdownHaltPct (${c.risk.drawdownHaltPct}), got "${c.risk.drawdownReducePct}" (trading reduces before it halts)`,
    );
  }

  if (c.polling.staleAfterMs <= c.polling.tickersMs) {
    issue(
      ['polling', 'staleAfterMs'],
      `expected more than polling.tickersMs (${c.polling.tickersMs}), got ${c.polling.staleAfterMs} (tickers would always count as stale)`,
    );
  }

  for (const [section, data] of [
    ['paper', c.paper.data],
    ['backtest', c.backtest.data],
  ] as const) {
    if (data !== undefined && !RECORDING_FILE.test(data))
      issue(
        [section, 'data'],
        `expected a .ndjson, .ndjson.gz or .parquet recording, got ${JSON.stringify(data)}`,
      );
  }

  if (c.mode === 'paper') {
    if (c.paper.venue === 'http' && isRealExchangeUrl(c.exchange.baseUrl)) {
      issue(
        ['paper', 'venue'],
        `expected exchange.baseUrl to be a capibot sim for venue http, got the real exchange ${JSON.stringify(c.exchange.baseUrl)} (paper mode never sends orders to it)`,
      );
    }
    if (c.paper.venue === 'embedded' && c.paper.source === 'recording' && c.paper.data === undefined) {
      issue(['paper', 'data'], 'missing (expected a recording file: paper.source is recording)');
    }
  }

  if (c.mode === 'live' && c.exchange.baseUrl.startsWith('http:') && !isLoopbackUrl(c.exchange.baseUrl)) {
    issue(
      ['exchange', 'baseUrl'],
      `expected an https URL in live mode, got ${JSON.stringify(c.exchange.baseUrl)} (credentials would travel in clear text)`,
    );
  }
}

/** The root schema plus the cross-field rules: what loading a config validates against. */
export const ValidatedConfigSchema = ConfigSchema.superRefine(crossCheck);
