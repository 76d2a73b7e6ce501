// A strict reader of the Prometheus text exposition format (0.0.4), enough to check what a scraper
// would see: every sample line parses, every sample belongs to a family announced by # TYPE.
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly types: ReadonlyMap<string, string>;
  readonly help: ReadonlyMap<string, string>;
  readonly samples: readonly Sample[];
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,\s*|$)/;

function parseLabels(text: string, line: string): Record<string, string> {
  const out: Record<string, string> = {};
  let rest = text.trim();
  while (rest.length > 0) {
    const m = LABEL.exec(rest);
    if (m === null) throw new Error(`bad labels in: ${line}`);
    out[m[1] as string] = (m[2] as string).replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    rest = rest.slice(m[0].length);
  }
  return out;
}

function parseValue(v: string, line: string): number {
  if (v === '+Inf') return Infinity;
  if (v === '-Inf') return -Infinity;
  if (v === 'NaN') return NaN;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new Error(`bad value in: ${line}`);
  return n;
}

/** The family a sample belongs to: histogram and summary samples carry suffixes. */
function familyOf(name: string, types: ReadonlyMap<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count', '_total', '_created']) {
    if (name.endsWith(suffix) && types.has(name.slice(0, -suffix.length)))
      return name.slice(0, -suffix.length);
  }
  return undefined;
}

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('# HELP ')) {
      const [, , name, ...text] = line.split(' ');
      if (name === undefined) throw new Error(`bad HELP line: ${line}`);
      help.set(name, text.join(' '));
      continue;
    }
    if (line.startsWith('# TYPE ')) {
      const parts = line.split(' ');
      const name = parts[2];
      const type = parts[3];
      if (name === undefined || type === undefined) throw new Error(`bad TYPE line: ${line}`);
      if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(type))
        throw new Error(`unknown type in: ${line}`);
      types.set(name, type);
      continue;
    }
    if (line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`not a sample line: ${line}`);
    const name = m[1] as string;
    if (familyOf(name, types) === undefined) throw new Error(`sample without # TYPE: ${line}`);
    samples.push({ name, labels: parseLabels(m[2] ?? '', line), value: parseValue(m[3] as string, line) });
  }
  return { types, help, samples };
}

/** Samples of `name` whose labels include `labels`. */
export function find(e: Exposition, name: string, labels: Readonly<Record<string, string>> = {}): Sample[] {
  return e.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
}
