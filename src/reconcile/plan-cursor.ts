// The plan-history cursor as stored in the meta table: `{ "<symbol>": <end of the last window read> }`.
// Unreadable text gives an empty cursor: the next poll starts from the initial lookback again, which
// only costs duplicates (plan orders are recorded by order id).
import { z } from 'zod';
import { decodeMetaJson } from './meta-json.ts';
import type { PlanCursor } from './plan-history-window.ts';

const planCursorSchema = z.record(z.string(), z.number().int().nonnegative());

export function decodePlanCursor(text: string | undefined): PlanCursor {
  return decodeMetaJson(text, planCursorSchema) ?? {};
}

export function encodePlanCursor(c: PlanCursor): string {
  return JSON.stringify(c);
}
