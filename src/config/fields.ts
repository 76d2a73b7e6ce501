// Field builders for the config schema. Each builder carries its own human "expected ..." message, so
// a validation error reads `risk.maxOpenOrders: expected a positive integer, got "ten"` whatever the
// underlying zod check was. Every field documents its default in its description, which the JSON
// Schema export carries to editors.
import { z } from 'zod';
import { dec, isDecimalString } from '../core/decimal.ts';

/** Appends the default to a description, so that `--help`-like output and editors show it. */
function withDefault(description: string, def: unknown): string {
  return `${description} Default: ${typeof def === 'string' ? def : JSON.stringify(def)}.`;
}

type IntKind = 'positive' | 'non-negative';

function intSchema(kind: IntKind, max?: number) {
  const expected = kind === 'positive' ? 'expected a positive integer' : 'expected a non-negative integer';
  const base = z
    .number({ error: expected })
    .int({ error: expected })
    .min(kind === 'positive' ? 1 : 0, { error: expected });
  return max === undefined ? base : base.max(max, { error: `expected an integer no greater than ${max}` });
}

/** A positive integer (counts, milliseconds, weights) with a default. */
export function positiveInt(description: string, def: number, max?: number) {
  return intSchema('positive', max).default(def).describe(withDefault(description, def));
}

/** A non-negative integer with a default. */
export function nonNegativeInt(description: string, def: number, max?: number) {
  return intSchema('non-negative', max).default(def).describe(withDefault(description, def));
}

/** A TCP port (0 = pick a free port). */
export function port(description: string, def: number) {
  const expected = 'expected a port number between 0 and 65535';
  return z
    .number({ error: expected })
    .int({ error: expected })
    .min(0, { error: expected })
    .max(65535, { error: expected })
    .default(def)
    .describe(withDefault(description, def));
}

/** A finite number in a range (used for non-money ratios: safety margin, speed, idle factor). */
export function ratio(description: string, def: number, range: { gt?: number; gte?: number; lte?: number }) {
  const bounds = [
    range.gt !== undefined ? `greater than ${range.gt}` : undefined,
    range.gte !== undefined ? `at least ${range.gte}` : undefined,
    range.lte !== undefined ? `at most ${range.lte}` : undefined,
  ].filter((b): b is string => b !== undefined);
  const expected = `expected a number ${bounds.join(' and ')}`;
  let s = z.number({ error: expected });
  if (range.gt !== undefined) s = s.gt(range.gt, { error: expected });
  if (range.gte !== undefined) s = s.gte(range.gte, { error: expected });
  if (range.lte !== undefined) s = s.lte(range.lte, { error: expected });
  return s.default(def).describe(withDefault(description, def));
}

export function bool(description: string, def: boolean) {
  return z.boolean({ error: 'expected true or false' }).default(def).describe(withDefault(description, def));
}

/** One of a fixed set of words. */
export function oneOf<const T extends readonly [string, ...string[]]>(
  values: T,
  description: string,
  def: T[number],
) {
  return z
    .enum(values, { error: `expected one of ${values.join(', ')}` })
    .default(def)
    .describe(withDefault(description, def));
}

/** A non-empty string (paths, names). */
export function text(description: string) {
  return z
    .string({ error: 'expected a text value' })
    .min(1, { error: 'expected a non-empty text value' })
    .describe(description);
}

export function textWithDefault(description: string, def: string) {
  return z
    .string({ error: 'expected a text value' })
    .min(1, { error: 'expected a non-empty text value' })
    .default(def)
    .describe(withDefault(description, def));
}

/** A string matching a pattern, explained in words. */
export function pattern(re: RegExp, explained: string, description: string, def: string) {
  return z
    .string({ error: `expected ${explained}` })
    .regex(re, { error: `expected ${explained}` })
    .default(def)
    .describe(withDefault(description, def));
}

/**
 * An http(s) URL without a user name or password in it (capibot signs with headers). Any `@` is
 * refused first, without quoting the value (a password may hold characters that make the URL
 * unparsable, so the check cannot wait for a parse); only then is the URL's shape checked.
 */
export function url(description: string, def: string) {
  const expected = 'expected an http(s) URL';
  return z
    .string({ error: expected })
    .refine((s) => !s.includes('@'), {
      error:
        'must not hold a user name or password (user:pass@): capibot never sends them; credentials come from the environment',
      params: { complete: true },
      abort: true,
    })
    .refine((s) => /^https?:\/\/[^\s/]+/.test(s) && URL.canParse(s), { error: expected })
    .default(def)
    .describe(withDefault(description, def));
}

/**
 * An environment variable's name. A value that looks like a credential itself (a long run of
 * letters and digits) is refused without being quoted: the key was pasted where its variable's name
 * belongs, and echoing it back would print it.
 */
export function envVariableName(re: RegExp, explained: string, description: string, def: string) {
  return z
    .string({ error: `expected ${explained}` })
    .refine((s) => !looksLikeCredential(s), {
      error:
        'looks like a credential, not the name of an environment variable: put the key in the environment and name its variable here',
      params: { complete: true },
      abort: true,
    })
    .regex(re, { error: `expected ${explained}` })
    .default(def)
    .describe(withDefault(description, def));
}

/**
 * A key rather than a name: base64 (`+ / =`), or a run of 16+ letters and digits mixed between
 * separators (hex and base62 keys, `sk_live_51H8x…`). Names are short words: `MY_DESK_API_KEY_2`,
 * `__CAPIBOT_API_SECRET_V2`. (A value that is not a valid name is refused anyway, never quoted.)
 */
function looksLikeCredential(s: string): boolean {
  if (s.length >= 16 && /[+/=]/.test(s)) return true;
  return s.split(/[_-]/).some((seg) => seg.length >= 16 && /\d/.test(seg) && /[A-Za-z]/.test(seg));
}

type DecimalKind = 'positive' | 'non-negative';

/**
 * An exact decimal, output as a plain decimal string (never a float). YAML numbers are accepted
 * (`100`, `0.5`) and converted to their decimal text; the loader keeps numbers that a float cannot
 * hold exactly as their source text, so nothing is rounded on the way.
 */
function decimalSchema(kind: DecimalKind, max?: string) {
  const expected =
    (kind === 'positive' ? 'expected a positive decimal number' : 'expected a non-negative decimal number') +
    (max !== undefined ? ` no greater than ${max}` : '');
  return z.union([z.string(), z.number()], { error: expected }).transform((v, ctx) => {
    const textValue = typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : v.trim();
    if (!isDecimalString(textValue)) {
      ctx.issues.push({ code: 'custom', message: expected, input: v });
      return z.NEVER;
    }
    const d = dec(textValue);
    const tooLow = kind === 'positive' ? d.lte(0) : d.lt(0);
    if (tooLow || (max !== undefined && d.gt(max))) {
      ctx.issues.push({ code: 'custom', message: expected, input: v });
      return z.NEVER;
    }
    return d.toFixed();
  });
}

/** A positive exact decimal (money, sizes), output as a decimal string. */
export function positiveDecimal(description: string, def: string, max?: string) {
  return decimalSchema('positive', max).default(def).describe(withDefault(description, def));
}

/** A non-negative exact decimal (fees, slippage), output as a decimal string. */
export function nonNegativeDecimal(description: string, def: string, max?: string) {
  return decimalSchema('non-negative', max).default(def).describe(withDefault(description, def));
}

/** An optional positive decimal without a default (absent = no limit). */
export function optionalPositiveDecimal(description: string) {
  return decimalSchema('positive').optional().describe(description);
}
