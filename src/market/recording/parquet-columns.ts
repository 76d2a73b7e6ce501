// Synchronous decoding of one column chunk of a row group already in memory, through hyparquet's
// column decoder. hyparquet's public readers are asynchronous (they fetch their own byte ranges);
// the replay needs a column on the spot — a ticker object is asked for synchronously, in the middle
// of a poll — so the row group's bytes are read once (parquet-reader.ts) and its columns decoded
// from them when first needed. `hyparquet/src/column.js` is a subpath the package exports on
// purpose (with its types); the version is pinned exactly in package.json for that reason.
import {
  parquetSchema,
  type ColumnMetaData,
  type DecodedArray,
  type FileMetaData,
  type ParquetParsers,
  type SchemaTree,
} from 'hyparquet';
import { readColumn } from 'hyparquet/src/column.js';
import { DEFAULT_PARSERS } from 'hyparquet/src/convert.js';
import { getTreePath } from 'hyparquet/src/schema.js';
import { gunzipSync } from 'node:zlib';
import { BadInputError } from '../../core/errors.ts';

/** Decompressors of the codecs a recording may use (Snappy is built into hyparquet). */
export const DECOMPRESSORS = {
  GZIP: (input: Uint8Array): Uint8Array => gunzipSync(input),
};

/**
 * Parsers that leave a string column's values as their UTF-8 bytes (views into the decoded page):
 * for a column read as bytes (RowGroupColumns' `last`, which the quiet path copies byte by byte),
 * no string is made per value.
 */
export const BYTES_PARSERS: ParquetParsers = {
  ...DEFAULT_PARSERS,
  stringFromBytes: (bytes: Uint8Array | undefined): Uint8Array | undefined => bytes,
};

/** Where a column chunk lies in the file, and how to decode it. */
export interface ChunkRef {
  readonly name: string;
  readonly meta: ColumnMetaData;
  /** Byte range in the file. */
  readonly start: number;
  readonly end: number;
}

/** The byte range of a column chunk (its dictionary page first, when it has one). */
export function chunkRange(meta: ColumnMetaData): { start: number; end: number } {
  const data = Number(meta.data_page_offset);
  const dict = meta.dictionary_page_offset !== undefined ? Number(meta.dictionary_page_offset) : undefined;
  const start = dict !== undefined && dict > 0 && dict < data ? dict : data;
  return { start, end: start + Number(meta.total_compressed_size) };
}

/** The schema tree of a file (built once per file). */
export function schemaTreeOf(metadata: FileMetaData): SchemaTree {
  return parquetSchema(metadata);
}

/**
 * The values of one column chunk, decoded from `bytes` (the row group's bytes, which start at file
 * offset `base`). Throws BadInputError naming the file and column when the chunk cannot be decoded.
 */
export function decodeChunk(
  file: string,
  tree: SchemaTree,
  bytes: Uint8Array,
  base: number,
  chunk: ChunkRef,
  rows: number,
  parsers: ParquetParsers = DEFAULT_PARSERS,
): DecodedArray {
  try {
    const schemaPath = getTreePath(tree, chunk.meta.path_in_schema);
    const leaf = schemaPath[schemaPath.length - 1];
    if (leaf === undefined) throw new Error('no schema element');
    const view = new DataView(bytes.buffer, bytes.byteOffset + chunk.start - base, chunk.end - chunk.start);
    const { data } = readColumn(
      { view, offset: 0 },
      { groupStart: 0, selectStart: 0, selectEnd: rows, groupRows: rows },
      {
        pathInSchema: chunk.meta.path_in_schema,
        type: chunk.meta.type,
        element: leaf.element,
        schemaPath,
        codec: chunk.meta.codec,
        parsers,
        compressors: DECOMPRESSORS,
      },
    );
    const out = data.length === 1 ? (data[0] as DecodedArray) : concat(data);
    if (out.length !== rows) throw new Error(`${out.length} values for ${rows} rows`);
    return out;
  } catch (e) {
    if (e instanceof BadInputError) throw e;
    throw new BadInputError(
      `column ${chunk.name} cannot be decoded (${(e as Error).message}): the file is damaged`,
      file,
    );
  }
}

function concat(parts: readonly DecodedArray[]): DecodedArray {
  const first = parts[0];
  if (first === undefined) return [];
  if (first instanceof BigInt64Array) {
    const n = parts.reduce((s, p) => s + p.length, 0);
    const out = new BigInt64Array(n);
    let at = 0;
    for (const p of parts) {
      out.set(p as BigInt64Array, at);
      at += p.length;
    }
    return out;
  }
  const out: unknown[] = [];
  for (const p of parts) for (let i = 0; i < p.length; i++) out.push(p[i]);
  return out;
}
