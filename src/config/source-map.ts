// Where each value of a config file was written: line and column per YAML path, so that every error
// names `file:line:col path`. Paths are the zod-style arrays (`['strategies', 0, 'id']`).

export type ConfigPath = readonly (string | number)[];

export interface Position {
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly col: number;
}

export class SourceMap {
  readonly source: string;
  private readonly values = new Map<string, Position>();
  private readonly keys = new Map<string, Position>();
  private readonly sensitive = new Set<string>();

  constructor(source: string) {
    this.source = source;
  }

  setValue(path: ConfigPath, pos: Position): void {
    this.values.set(pathKey(path), pos);
  }

  setKey(path: ConfigPath, pos: Position): void {
    this.keys.set(pathKey(path), pos);
  }

  /** Marks a value whose text must never be echoed in an error (it came from a secret-looking variable). */
  markSensitive(path: ConfigPath): void {
    this.sensitive.add(pathKey(path));
  }

  isSensitive(path: ConfigPath): boolean {
    return this.sensitive.has(pathKey(path));
  }

  /** Position of the value at `path`, or of its nearest written ancestor (a missing key points at its parent). */
  valuePosition(path: ConfigPath): Position {
    for (let n = path.length; n >= 0; n--) {
      const pos = this.values.get(pathKey(path.slice(0, n)));
      if (pos) return pos;
    }
    return { line: 1, col: 1 };
  }

  /** Position of the key at `path` (for unknown keys), else of the value. */
  keyPosition(path: ConfigPath): Position {
    return this.keys.get(pathKey(path)) ?? this.valuePosition(path);
  }

  /** `file:line:col path` — the prefix of every config error line. */
  where(path: ConfigPath, at: 'key' | 'value' = 'value'): string {
    const pos = at === 'key' ? this.keyPosition(path) : this.valuePosition(path);
    return `${this.source}:${pos.line}:${pos.col} ${displayPath(path)}`;
  }
}

function pathKey(path: ConfigPath): string {
  return JSON.stringify(path);
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `risk.maxOpenOrders`, `strategies[1].id`, `strategies[0].params["fast-period"]`; `(root)` for the document. */
export function displayPath(path: ConfigPath): string {
  if (path.length === 0) return '(root)';
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENT.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}
