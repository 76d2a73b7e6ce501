// Query strings are built once, in a fixed parameter order, and that exact text is both signed and
// sent (the exchange verifies the signature over the raw query after `?`).

export type QueryValue = string | number | undefined;

/** `a=1&b=x` from ordered pairs; undefined values are left out; values are percent-encoded. */
export function buildQuery(pairs: readonly (readonly [string, QueryValue])[]): string {
  return pairs
    .filter((p): p is readonly [string, string | number] => p[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
}
