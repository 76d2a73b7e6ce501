import { describe, expect, it } from 'vitest';
import { CONFIG_SECTIONS, configJsonSchema } from '../../src/config/index.ts';

interface JsonSchemaNode {
  type?: string | string[];
  description?: string;
  default?: unknown;
  properties?: Record<string, JsonSchemaNode>;
  items?: JsonSchemaNode;
  additionalProperties?: boolean | JsonSchemaNode;
  required?: string[];
}

const schema = JSON.parse(JSON.stringify(configJsonSchema())) as JsonSchemaNode & { $schema: string };

function sections(): [string, JsonSchemaNode][] {
  return Object.entries(schema.properties ?? {});
}

describe('config JSON Schema', () => {
  it('is JSON for draft 2020-12 describing an object', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['strategies']);
  });

  it('covers every top-level key of the config', () => {
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual([...CONFIG_SECTIONS].sort());
  });

  it('describes every field, and gives a default to every optional scalar field that has one', () => {
    const undocumented: string[] = [];
    const visit = (node: JsonSchemaNode, path: string): void => {
      if (!node.description) undocumented.push(path);
      for (const [k, child] of Object.entries(node.properties ?? {})) visit(child, `${path}.${k}`);
      if (node.items) visit(node.items, `${path}[]`);
    };
    for (const [k, node] of sections()) visit(node, k);
    expect(undocumented).toEqual([]);
  });

  it('documents defaults (the risk limits carry theirs even though they are decimals)', () => {
    const risk = schema.properties?.['risk']?.properties ?? {};
    expect(risk['maxOrderNotional']?.default).toBe('1000');
    expect(risk['maxOpenOrders']?.default).toBe(50);
    expect(schema.properties?.['mode']?.default).toBe('paper');
    expect(schema.properties?.['metrics']?.properties?.['host']?.default).toBe('127.0.0.1');
  });

  it('refuses unknown keys in every section (strict objects)', () => {
    for (const [k, node] of sections()) {
      if (node.type === 'object') expect(node.additionalProperties, k).toBe(false);
    }
    expect(schema.properties?.['strategies']?.items?.additionalProperties).toBe(false);
  });
});
