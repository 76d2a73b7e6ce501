// Flag values that commands read as text and check when they run (a BadInputError names the flag).
import { BadInputError } from '../core/errors.ts';

/** A positive integer flag value; BadInputError naming the flag otherwise. */
export function parsePositiveInt(text: string, flag: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new BadInputError(`${flag} must be a positive integer, got ${JSON.stringify(text)}`);
  return n;
}
