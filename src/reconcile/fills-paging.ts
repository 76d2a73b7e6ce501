// Paging the fills endpoint (pure). The endpoint has only `startTime`/`endTime`/`limit` and a
// `nextFlag` (weex-facts.md §8): no page index, no id cursor. So a poll reads a time window newest
// first and pages back by moving `endTime` down to the oldest fill of the page, until `nextFlag` is
// false or the page budget of one poll is spent; what is left becomes a backfill window for the next
// poll. The next regular poll starts at the newest `createdTime` seen minus an overlap window, because
// fills can be indexed a little after their `createdTime`; the overlap costs duplicates, which the
// reconcile kernel drops by tradeId.
//
// Boundary millisecond: whether `endTime` is inclusive is not documented. Paging back with
// `endTime = oldest − 1` (the obvious rule) silently skips the other fills of the oldest millisecond
// when a page boundary cuts through it. We page with `endTime = oldest + 1`, which re-reads that
// millisecond under either reading (the duplicates are dropped by tradeId); only if a page then makes
// no progress (≥ `limit` fills within two milliseconds) do we step to `oldest − 1`, with a warning.
//
// Commit the cursor returned when a poll is done in the same store transaction as the fills it
// covers (or after): a cursor committed ahead of its fills would skip them after a crash.
import { z } from 'zod';
import type { Mutable } from '../core/copies.ts';
import type { FillsQuery } from '../exchange/port.ts';
import type { SymbolId } from '../core/ids.ts';
import type { FillPage } from '../core/reports.ts';
import { decodeMetaJson } from './meta-json.ts';

export interface FillsCursor {
  /** Newest fill `createdTime` recorded so far. */
  readonly newestSeen?: number;
  /** A window a previous poll could not finish (page budget spent), fetched before anything new. */
  readonly backfill?: { readonly startTime: number; readonly endTime: number };
}

export interface FillsPagingConfig {
  /** Re-read this much before the newest fill seen. */
  readonly overlapMs: number;
  /** First poll ever (no cursor): how far back to start. */
  readonly initialLookbackMs: number;
  /** Pages per poll (each page costs request weight). */
  readonly maxPages: number;
  /** 1..100. */
  readonly limit: number;
  readonly symbol?: SymbolId;
}

/** The state of one poll between pages. */
export interface FillsPaging {
  readonly phase: 'recent' | 'backfill';
  readonly startTime: number;
  /** Undefined: up to now. */
  readonly endTime?: number;
  readonly pages: number;
  /** Newest `createdTime` seen by this poll. */
  readonly newest?: number;
  /** Oldest `createdTime` of the previous page (progress check). */
  readonly lastOldest?: number;
}

export type FillsStep =
  | { readonly kind: 'more'; readonly paging: FillsPaging; readonly warning?: string }
  | { readonly kind: 'done'; readonly cursor: FillsCursor; readonly warning?: string };

export function beginFillsPoll(cursor: FillsCursor, cfg: FillsPagingConfig, now: number): FillsPaging {
  if (cursor.backfill !== undefined) {
    return {
      phase: 'backfill',
      startTime: cursor.backfill.startTime,
      endTime: cursor.backfill.endTime,
      pages: 0,
    };
  }
  const startTime =
    cursor.newestSeen !== undefined
      ? Math.max(0, cursor.newestSeen - cfg.overlapMs)
      : Math.max(0, now - cfg.initialLookbackMs);
  return { phase: 'recent', startTime, pages: 0 };
}

export function fillsQuery(p: FillsPaging, cfg: FillsPagingConfig): FillsQuery {
  // Key by key, in the query string's order (no leading spread: ../core/copies.ts).
  const q: Mutable<FillsQuery> = {};
  if (cfg.symbol !== undefined) q.symbol = cfg.symbol;
  q.startTime = p.startTime;
  if (p.endTime !== undefined) q.endTime = p.endTime;
  q.limit = Math.min(100, Math.max(1, Math.trunc(cfg.limit)));
  return q;
}

function timeRange(page: FillPage): { oldest: number; newest: number } | undefined {
  if (page.fills.length === 0) return undefined;
  let oldest = Number.POSITIVE_INFINITY;
  let newest = Number.NEGATIVE_INFINITY;
  for (const f of page.fills) {
    if (f.createdTime < oldest) oldest = f.createdTime;
    if (f.createdTime > newest) newest = f.createdTime;
  }
  return { oldest, newest };
}

/** Given the page just fetched for `p`, either the next page to fetch or the cursor to commit. */
export function afterFillsPage(
  p: FillsPaging,
  page: FillPage,
  cursor: FillsCursor,
  cfg: FillsPagingConfig,
): FillsStep {
  const range = timeRange(page);
  const newest =
    p.phase === 'recent' && range !== undefined ? Math.max(p.newest ?? range.newest, range.newest) : p.newest;
  const pages = p.pages + 1;
  const finished = (extra: Partial<FillsCursor>, warning?: string): FillsStep => {
    const newestSeen =
      newest === undefined
        ? cursor.newestSeen
        : Math.max(cursor.newestSeen ?? Number.NEGATIVE_INFINITY, newest);
    const next: Mutable<FillsCursor> = {};
    if (newestSeen !== undefined) next.newestSeen = newestSeen;
    // A backfill being worked on is replaced by what is left of it (or dropped when complete).
    if (p.phase === 'recent' && cursor.backfill !== undefined) next.backfill = cursor.backfill;
    Object.assign(next, extra);
    return { kind: 'done', cursor: next, ...(warning !== undefined ? { warning } : {}) };
  };
  if (!page.nextFlag || range === undefined) return finished({});

  let endTime = range.oldest + 1;
  let warning: string | undefined;
  if (p.lastOldest !== undefined && range.oldest >= p.lastOldest) {
    endTime = range.oldest - 1;
    warning = `fills paging made no progress at createdTime ${range.oldest} (≥ ${cfg.limit} fills within 2 ms); stepping past it may skip some`;
  }
  if (endTime <= p.startTime) return finished({}, warning);
  if (pages >= cfg.maxPages) {
    return finished(
      { backfill: { startTime: p.startTime, endTime } },
      `fills paging stopped after ${pages} pages; the window ${p.startTime}..${endTime} is fetched next poll`,
    );
  }
  return {
    kind: 'more',
    paging: { ...p, endTime, pages, lastOldest: range.oldest, ...(newest !== undefined ? { newest } : {}) },
    ...(warning !== undefined ? { warning } : {}),
  };
}

const cursorSchema = z.object({
  newestSeen: z.number().int().nonnegative().optional(),
  backfill: z
    .object({ startTime: z.number().int().nonnegative(), endTime: z.number().int().nonnegative() })
    .optional(),
});

/** A time the cursor holds: what `z.number().int().nonnegative()` accepts. */
const isTime = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * The cursor of a parsed meta value in the form capibot writes, checked by hand (what cursorSchema
 * gives); undefined for anything else, which the schema then reads. The text changes at every round
 * that sees a new fill, so the schema's parse ran once a round: about 7 µs of each order a backtest
 * places.
 */
function plainFillsCursor(raw: unknown): FillsCursor | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { newestSeen, backfill } = raw as { newestSeen?: unknown; backfill?: unknown };
  if (newestSeen !== undefined && !isTime(newestSeen)) return undefined;
  if (backfill === undefined) return newestSeen !== undefined ? { newestSeen } : {};
  if (typeof backfill !== 'object' || backfill === null) return undefined;
  const { startTime, endTime } = backfill as { startTime?: unknown; endTime?: unknown };
  if (!isTime(startTime) || !isTime(endTime)) return undefined;
  const cursor: Mutable<FillsCursor> = {};
  if (newestSeen !== undefined) cursor.newestSeen = newestSeen;
  cursor.backfill = { startTime, endTime };
  return cursor;
}

/** Meta-table text → cursor; unreadable text gives an empty cursor (the overlap + dedupe make that safe). */
export function decodeFillsCursor(text: string | undefined): FillsCursor {
  const parsed = decodeMetaJson(text, cursorSchema, plainFillsCursor);
  if (parsed === undefined) return {};
  const { newestSeen, backfill } = parsed;
  const cursor: Mutable<FillsCursor> = {};
  if (newestSeen !== undefined) cursor.newestSeen = newestSeen;
  if (backfill !== undefined) cursor.backfill = backfill;
  return cursor;
}

export function encodeFillsCursor(c: FillsCursor): string {
  return JSON.stringify(c);
}
