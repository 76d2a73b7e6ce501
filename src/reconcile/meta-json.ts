// Poller cursors live as JSON text in the store's meta table. Reading one back never fails: text that
// does not parse or does not match its schema reads as absent, and each caller starts over from its
// initial window (the overlap and the dedupe by id make that safe; it only costs duplicate rows).
import type { z } from 'zod';

export function decodeMetaJson<T>(text: string | undefined, schema: z.ZodType<T>): T | undefined {
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}
