// JSON text with numbers written verbatim: the live fills endpoint sends 18-digit ids as JSON number
// literals, which JSON.stringify cannot produce from a string (and a JS number cannot hold).
// A RawNumber is emitted unquoted, exactly as given.

export class RawNumber {
  readonly text: string;
  constructor(text: string) {
    if (!/^-?\d+(?:\.\d+)?$/.test(text)) throw new RangeError(`not a JSON number literal: ${text}`);
    this.text = text;
  }
}

/** JSON.stringify semantics (undefined members dropped) plus RawNumber literals; compact output. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawNumber) return value.text;
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : toJsonText(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) continue;
      parts.push(`${JSON.stringify(k)}:${toJsonText(v)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
