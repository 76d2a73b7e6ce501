// Deep freeze: the parsed config is shared by every component and must not change under them.

/** Freezes `value` and everything reachable from it; returns it typed as deeply readonly by the caller. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) {
      deepFreeze((value as Record<PropertyKey, unknown>)[key]);
    }
  }
  return value;
}
