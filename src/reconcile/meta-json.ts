// Poller cursors live as JSON text in the store's meta table. Reading one back never fails: text that
// does not parse or does not match its schema reads as absent, and each caller starts over from its
// initial window (the overlap and the dedupe by id make that safe; it only costs duplicate rows).
//
// Rounds read their cursor on every round (a backtest runs thousands a minute of replay), and the text
// changes only when a round moves the cursor: the last text decoded per schema is remembered, and its
// value handed out again, frozen (callers build new cursors, never edit one).
import type { z } from 'zod';

const lastDecoded = new WeakMap<z.ZodType, { readonly text: string; readonly value: unknown }>();

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * `text`'s value when it parses and matches `schema`, else undefined. `check`, when given, reads the
 * common form by hand first (what the schema gives, or undefined to ask the schema): a cursor that
 * changes every round was otherwise parsed by zod every round.
 */
export function decodeMetaJson<T>(
  text: string | undefined,
  schema: z.ZodType<T>,
  check?: (raw: unknown) => T | undefined,
): T | undefined {
  if (text === undefined) return undefined;
  const last = lastDecoded.get(schema);
  if (last !== undefined && last.text === text) return last.value as T | undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const checked = check?.(raw);
  const parsed = checked === undefined ? schema.safeParse(raw) : undefined;
  const value = deepFreeze(checked ?? (parsed?.success === true ? parsed.data : undefined));
  lastDecoded.set(schema, { text, value });
  return value;
}
