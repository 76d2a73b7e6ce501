// The plan-history cursor as stored in the meta table: `{ "<symbol>": <end of the last window read> }`.
// Unreadable text gives an empty cursor: the next poll starts from the initial lookback again, which
// only costs duplicates (plan orders are recorded by order id).
import { z } from 'zod';
import { decodeMetaJson } from './meta-json.ts';
import type { PlanCursor } from './plan-history-window.ts';

const planCursorSchema = z.record(z.string(), z.number().int().nonnegative());

/**
 * The cursor of a parsed meta value in the form capibot writes, checked by hand (what
 * planCursorSchema gives); undefined for anything else, which the schema then reads. The text moves at
 * every plan round of a run with a plan resting, so the schema's parse ran once a round. (Exported
 * for its test: a check that never accepted anything would still decode every text right.)
 */
export function plainPlanCursor(raw: unknown): PlanCursor | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const cursor: Record<string, number> = {};
  for (const key of Object.keys(raw)) {
    const end = (raw as Record<string, unknown>)[key];
    // (A `__proto__` key with a number is dropped by the assignment, as the schema drops it.)
    if (typeof end !== 'number' || !Number.isSafeInteger(end) || end < 0) return undefined;
    cursor[key] = end;
  }
  return cursor;
}

export function decodePlanCursor(text: string | undefined): PlanCursor {
  return decodeMetaJson(text, planCursorSchema, plainPlanCursor) ?? {};
}

export function encodePlanCursor(c: PlanCursor): string {
  return JSON.stringify(c);
}
