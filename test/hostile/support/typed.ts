// What may come out of code fed hostile input: a result, or one of the closed set of typed errors.
// Anything else (TypeError, RangeError, SyntaxError, a plain Error from a library) is a crash.
import { expect } from 'vitest';
import { CapibotError } from '../../../src/core/errors.ts';

export type Outcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/** Runs `f`, catching whatever it throws. */
export function attempt<T>(f: () => T): Outcome<T> {
  try {
    return { ok: true, value: f() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Awaits `p`, catching its rejection. */
export async function settle<T>(p: Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** A short description of a thrown value, for assertion messages. */
export function describeThrown(e: unknown): string {
  if (e instanceof Error) return `${e.constructor.name}: ${e.message.slice(0, 300)}`;
  return `non-Error thrown: ${String(e).slice(0, 300)}`;
}

/** Fails unless the outcome is a result or an error of one of `allowed` (default: any CapibotError). */
export function expectTypedOnly<T>(o: Outcome<T>, allowed: readonly ErrorClass[] = [CapibotError]): void {
  if (o.ok) return;
  const ok = allowed.some((c) => o.error instanceof c);
  expect(ok, `untyped error escaped: ${describeThrown(o.error)}`).toBe(true);
}

/** Fails unless the outcome is an error of one of `allowed`. */
export function expectTypedError<T>(o: Outcome<T>, allowed: readonly ErrorClass[]): Error {
  expect(o.ok, o.ok ? 'expected an error, got a result' : '').toBe(false);
  const error = (o as { error: unknown }).error;
  expectTypedOnly(o, allowed);
  return error as Error;
}

/**
 * Races `p` against a guard: resolves with the outcome, or with `'hung'` when `p` did not settle
 * within `ms`. The guard is an upper bound only (nothing here asserts speed).
 */
export async function within<T>(p: Promise<T>, ms: number): Promise<Outcome<T> | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  try {
    return await Promise.race([settle(p), guard]);
  } finally {
    clearTimeout(timer);
  }
}
