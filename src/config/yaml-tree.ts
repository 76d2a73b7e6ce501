// YAML text → plain data + source map, in one walk over the document's nodes (parseDocument keeps
// their offsets). On the way, `${VAR}` references are replaced from the environment and values
// written inline under secret-looking keys are refused. Nothing here knows the config schema.
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, Scalar } from 'yaml';
import type { Document, Node } from 'yaml';
import { ConfigError } from '../core/errors.ts';
import { dec, isDecimalString } from '../core/decimal.ts';
import { hasReference, interpolate, isPureReference } from './interpolate.ts';
import type { Env } from './interpolate.ts';
import { ConfigProblemsError, type ConfigProblem } from './problems.ts';
import { inlineSecretMessage, isSecretLookingKey } from './secrets.ts';
import { displayPath, SourceMap } from './source-map.ts';
import type { ConfigPath, Position } from './source-map.ts';

export interface YamlTree {
  readonly data: unknown;
  readonly map: SourceMap;
}

/** Deeper than this is not a config (and guards against recursive aliases). */
const MAX_DEPTH = 64;

/** More values than this (after expanding aliases) is not a config: it guards against alias bombs. */
const MAX_NODES = 100_000;

/** Marks a mapping value that interpolated to nothing: the key counts as absent (its default applies). */
const ABSENT: unique symbol = Symbol('absent');

export function readYamlTree(textValue: string, source: string, env: Env): YamlTree {
  const lines = new LineCounter();
  const doc = parseDocument(textValue, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const map = new SourceMap(source);
  const at = (offset: number): Position => lines.linePos(offset);

  const first = doc.errors[0];
  if (first) {
    const pos = at(first.pos[0]);
    throw new ConfigError(
      `invalid YAML: ${yamlMessage(first.code, first.message)}`,
      `${source}:${pos.line}:${pos.col}`,
    );
  }

  const walker = new Walker(doc, env, map, at);
  map.setValue([], { line: 1, col: 1 });
  const data = doc.contents === null ? {} : walker.node(doc.contents, [], 0);
  // Inline secrets and unset variables are all listed at once (the walk goes on past each).
  if (walker.problems.length > 0)
    throw new ConfigProblemsError([...walker.problems].sort((a, b) => a.line - b.line || a.col - b.col));
  return { data: data === ABSENT ? {} : data, map };
}

function yamlMessage(code: string, message: string): string {
  if (code === 'DUPLICATE_KEY') return 'a key appears twice in the same mapping';
  if (code === 'MULTIPLE_DOCS') return 'more than one YAML document (---) in the file';
  if (code === 'TAB_AS_INDENT') return 'tabs are not allowed as indentation';
  return (message.split('\n')[0] ?? message).replace(/\.$/, '');
}

class Walker {
  private readonly doc: Document;
  private readonly env: Env;
  private readonly map: SourceMap;
  private readonly at: (offset: number) => Position;
  private visited = 0;
  /** Inline secrets and unset variables found so far (the walk goes on past them). */
  readonly problems: ConfigProblem[] = [];

  constructor(doc: Document, env: Env, map: SourceMap, at: (offset: number) => Position) {
    this.doc = doc;
    this.env = env;
    this.map = map;
    this.at = at;
  }

  private fail(path: ConfigPath, message: string, pos?: Position): never {
    const p = pos ?? this.map.valuePosition(path);
    throw new ConfigError(message, `${this.map.source}:${p.line}:${p.col} ${displayPath(path)}`);
  }

  /** Notes a problem at `path` and lets the walk go on. */
  private note(path: ConfigPath, message: string): void {
    const p = this.map.valuePosition(path);
    this.problems.push({
      where: `${this.map.source}:${p.line}:${p.col} ${displayPath(path)}`,
      message,
      line: p.line,
      col: p.col,
    });
  }

  node(node: unknown, path: ConfigPath, depth: number): unknown {
    if (depth > MAX_DEPTH) this.fail(path, 'nested too deeply (or an alias refers to itself)');
    if (++this.visited > MAX_NODES) {
      this.fail(
        path,
        `too many values after expanding aliases (more than ${MAX_NODES}); is this an alias bomb?`,
      );
    }
    if (isAlias(node)) return this.node(node.resolve(this.doc), path, depth + 1);
    if (isMap(node)) return this.mapping(node.items, path, depth);
    if (isSeq(node)) {
      return node.items.map((item, i) => {
        const itemPath = [...path, i];
        this.record(itemPath, item);
        const v = this.node(item, itemPath, depth + 1);
        return v === ABSENT ? undefined : v;
      });
    }
    if (isScalar(node)) return this.scalar(node, path);
    return null;
  }

  private record(path: ConfigPath, node: unknown): void {
    const range = (node as { range?: readonly number[] } | null)?.range;
    if (range && range[0] !== undefined) this.map.setValue(path, this.at(range[0]));
  }

  private mapping(items: readonly unknown[], path: ConfigPath, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const pair of items) {
      if (!isPair(pair)) continue;
      const keyNode = pair.key;
      const keyPos =
        isScalar(keyNode) && keyNode.range ? this.at(keyNode.range[0]) : this.map.valuePosition(path);
      const keyValue = isScalar(keyNode) ? keyNode.value : undefined;
      if (typeof keyValue !== 'string' && typeof keyValue !== 'number') {
        this.fail(path, 'keys must be plain words', keyPos);
      }
      const key = String(keyValue);
      const valuePath = [...path, key];
      this.map.setKey(valuePath, keyPos);
      this.map.setValue(valuePath, keyPos);
      this.record(valuePath, pair.value);
      this.refuseInlineSecret(key, pair.value as Node | null, valuePath);
      const v = pair.value === null ? null : this.node(pair.value, valuePath, depth + 1);
      // defineProperty: a key named __proto__ becomes a plain (unknown) key, never the prototype.
      if (v !== ABSENT)
        Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  private refuseInlineSecret(key: string, value: Node | null, path: ConfigPath): void {
    if (!isSecretLookingKey(key) || !isScalar(value)) return;
    const v = value.value;
    const inline =
      (typeof v === 'string' && v.trim() !== '' && !isPureReference(v)) ||
      (typeof v === 'number' && Number.isFinite(v));
    if (inline) this.note(path, inlineSecretMessage(displayPath(path)));
  }

  private scalar(node: Scalar, path: ConfigPath): unknown {
    const v: unknown = node.value;
    if (typeof v === 'number') return exactNumber(v, node.source);
    if (typeof v !== 'string' || !hasReference(v)) return v;
    const result = interpolate(v, this.env);
    if (!result.ok) {
      this.note(path, result.message);
      return ABSENT;
    }
    if (referencesSecretVariable(v)) this.map.markSensitive(path);
    // A plain (unquoted) scalar is typed after replacement as YAML would type it, so that
    // `port: ${PORT:-9464}` is a number; a quoted one stays text. Empty means "not set".
    if (!result.replaced || node.type !== Scalar.PLAIN) return result.value;
    return retype(result.value);
  }
}

/** Numbers a float cannot hold exactly (long decimals, huge integers) are kept as their source text. */
function exactNumber(value: number, source: string | undefined): number | string {
  if (source === undefined || !Number.isFinite(value)) return value;
  const s = source.trim().replace(/^\+/, '');
  if (!isDecimalString(s)) return value;
  return dec(s).eq(value) ? value : s;
}

const NUMBER = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

function retype(value: string): unknown {
  const t = value.trim();
  if (t === '') return ABSENT;
  if (t === 'true') return true;
  if (t === 'false') return false;
  if (NUMBER.test(t)) return exactNumber(Number(t), t);
  return value;
}

function referencesSecretVariable(textValue: string): boolean {
  for (const m of textValue.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)) {
    if (m[1] !== undefined && isSecretLookingKey(m[1])) return true;
  }
  return false;
}
