// Decimals crossing the plugin boundary. A plugin loaded through tsx gets its own copy of capibot's
// modules, so its Dec values are not `instanceof` ours; they are recognised by their brand (or, for a
// plugin that computes with big.js itself, by big.js's shape) and re-parsed exactly from their plain
// decimal text (toFixed never uses exponent notation).
import { dec, isDec, isDecimalString, type Dec } from '../core/decimal.ts';
import { FixedDecimal } from '../core/fixed-decimal.ts';

interface BigLike {
  readonly s: number;
  readonly e: number;
  readonly c: readonly number[];
  toFixed(): string;
}

function isBigLike(v: unknown): v is BigLike {
  if (typeof v !== 'object' || v === null) return false;
  const b = v as Partial<BigLike>;
  return (
    typeof b.toFixed === 'function' &&
    typeof b.s === 'number' &&
    typeof b.e === 'number' &&
    Array.isArray(b.c)
  );
}

/**
 * A finite number as the Dec of its shortest round-trip decimal (what it prints as: 0.1 + 0.2 is
 * 0.30000000000000004, 0.3 is 0.3), exactly; otherwise undefined. For numbers the framework snaps
 * to a tick or step right after (`ctx.place`, `ctx.roundPrice`): intents themselves take no number.
 */
export function numberToDec(v: number): Dec | undefined {
  const text = String(v);
  return Number.isFinite(v) && isDecimalString(text) ? dec(text) : undefined;
}

/** A Dec of this module instance, from a Dec of any instance or a decimal string; otherwise undefined. */
export function toDec(v: unknown): Dec | undefined {
  if (v instanceof FixedDecimal) return v;
  if (isDec(v) || isBigLike(v)) return dec(v.toFixed());
  if (typeof v === 'string' && isDecimalString(v.trim())) return dec(v.trim());
  return undefined;
}
