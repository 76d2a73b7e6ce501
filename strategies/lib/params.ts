// zod fields shared by the example strategies' params schemas. Money-like params (notionals, basis
// points, percentages) are decimal TEXT in the config (a YAML number is accepted and read through
// its shortest text, e.g. 0.1 → "0.1") and arrive in the strategy as an exact Dec, never a float.
import { dec, z, type Dec } from '../../src/strategy/index.ts';

const DECIMAL_TEXT = /^\d+(?:\.\d+)?$/;

export interface DecimalBounds {
  /** Smallest allowed value (inclusive). */
  readonly min?: string;
  /** The value must be strictly greater than this. */
  readonly gt?: string;
  /** Largest allowed value (inclusive). */
  readonly max?: string;
}

function boundsText(b: DecimalBounds): string {
  const parts: string[] = [];
  if (b.gt !== undefined) parts.push(`> ${b.gt}`);
  if (b.min !== undefined) parts.push(`≥ ${b.min}`);
  if (b.max !== undefined) parts.push(`≤ ${b.max}`);
  return parts.join(', ');
}

/**
 * A non-negative decimal param with a default: accepts `"0.25"` or `0.25`, yields a Dec.
 * `description` should say the unit (USDT, bps, %, ...); the default and bounds are appended.
 */
export function decimalParam(def: string, description: string, bounds: DecimalBounds = {}) {
  const range = boundsText(bounds);
  return z
    .union([
      z.string().regex(DECIMAL_TEXT, { error: 'expected a non-negative decimal such as "0.25"' }),
      z.number().nonnegative(),
    ])
    .transform((v): Dec => dec(typeof v === 'number' ? String(v) : v))
    .refine((d) => bounds.gt === undefined || d.gt(bounds.gt), { error: `must be > ${bounds.gt ?? ''}` })
    .refine((d) => bounds.min === undefined || d.gte(bounds.min), { error: `must be ≥ ${bounds.min ?? ''}` })
    .refine((d) => bounds.max === undefined || d.lte(bounds.max), { error: `must be ≤ ${bounds.max ?? ''}` })
    .prefault(def)
    .describe(`${description} Default: ${def}${range !== '' ? ` (${range})` : ''}.`);
}

/** An integer param with a default and bounds (counts, periods in tickers, durations in ms). */
export function intParam(def: number, description: string, min: number, max: number) {
  return z
    .number()
    .int()
    .min(min)
    .max(max)
    .default(def)
    .describe(`${description} Default: ${def} (${min}..${max}).`);
}

/** The traded symbol, e.g. `cmt_btcusdt`. */
export function symbolParam(def: string) {
  return z
    .string()
    .regex(/^[a-z0-9_]{1,32}$/, { error: 'expected an exchange symbol such as cmt_btcusdt' })
    .default(def)
    .describe(`Exchange symbol traded. Default: ${def}.`);
}
