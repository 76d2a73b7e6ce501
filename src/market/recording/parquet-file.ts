// The footer of a Parquet recording: opening the file, checking it is one (format key, columns and
// their types) and its key-value metadata (parquet-schema.ts). BadInputError names the file.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { parquetMetadataAsync, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { BadInputError } from '../../core/errors.ts';
import type { RecordingMeta } from '../../core/market.ts';
import { ALL_COLUMNS, PARQUET_FORMAT, PARQUET_KEYS } from './parquet-schema.ts';

/** A file's metadata, checked: its recording meta and how to read its row groups. */
export interface ParquetRecordingInfo {
  readonly meta: RecordingMeta | undefined;
  /** The exact meta line (for the NDJSON form). */
  readonly metaLine: string | undefined;
  readonly polls: number;
  readonly ndjsonSha256: string | undefined;
  readonly finalNewline: boolean;
}

const PHYSICAL: Record<string, string> = { poll: 'INT32', t: 'INT64', timestamp: 'INT64' };

function fileBuffer(fd: number, size: number): AsyncBuffer {
  return {
    byteLength: size,
    slice(start: number, end?: number): ArrayBuffer {
      const stop = Math.min(end ?? size, size);
      const buf = new Uint8Array(Math.max(0, stop - start));
      readSync(fd, buf, 0, buf.length, start);
      return buf.buffer;
    },
  };
}

/** The checked key-value metadata of a capibot Parquet recording. */
export function recordingInfo(
  file: string,
  md: FileMetaData,
): ParquetRecordingInfo & { groupHashes: readonly string[] } {
  const kv = new Map((md.key_value_metadata ?? []).map((e) => [e.key, e.value]));
  if (kv.get(PARQUET_KEYS.format) !== PARQUET_FORMAT)
    throw new BadInputError(
      `not a capibot Parquet recording (its key-value metadata has no ${PARQUET_KEYS.format} = ${PARQUET_FORMAT}); to bring in other Parquet data use capibot import --from parquet-quotes or parquet-bars`,
      file,
    );
  const schema = md.schema;
  for (const name of ALL_COLUMNS) {
    const el = schema.find((s) => s.name === name);
    if (el === undefined) throw new BadInputError(`missing column ${name}`, file);
    const want = PHYSICAL[name] ?? 'BYTE_ARRAY';
    if (el.type !== want)
      throw new BadInputError(`column ${name} is ${String(el.type)}, expected ${want}`, file);
  }
  let meta: RecordingMeta | undefined;
  const metaText = kv.get(PARQUET_KEYS.meta);
  if (metaText !== undefined) {
    let v: unknown;
    try {
      v = JSON.parse(metaText);
    } catch {
      v = undefined;
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new BadInputError(`${PARQUET_KEYS.meta} is not a JSON object`, file);
    meta = v as RecordingMeta;
  }
  let groupHashes: unknown;
  try {
    groupHashes = JSON.parse(kv.get(PARQUET_KEYS.rowGroupSha256) ?? '[]');
  } catch {
    groupHashes = [];
  }
  const polls = Number(kv.get(PARQUET_KEYS.polls) ?? Number.NaN);
  return {
    meta,
    metaLine: kv.get(PARQUET_KEYS.metaLine) ?? (metaText !== undefined ? `{"meta":${metaText}}` : undefined),
    polls: Number.isSafeInteger(polls) && polls >= 0 ? polls : -1,
    ndjsonSha256: kv.get(PARQUET_KEYS.ndjsonSha256),
    finalNewline: kv.get(PARQUET_KEYS.finalNewline) !== 'false',
    groupHashes: Array.isArray(groupHashes)
      ? groupHashes.filter((h): h is string => typeof h === 'string')
      : [],
  };
}

/** Opens the file and reads its footer; BadInputError when it is not a readable capibot recording. */
export async function openFile(
  path: string,
): Promise<{ fd: number; md: FileMetaData; info: ReturnType<typeof recordingInfo> }> {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new BadInputError(
      `cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      path,
    );
  }
  try {
    const size = fstatSync(fd).size;
    const head = new Uint8Array(4);
    readSync(fd, head, 0, 4, 0);
    if (size < 12 || String.fromCharCode(...head) !== 'PAR1')
      throw new BadInputError('not a Parquet file (no PAR1 magic at its start)', path);
    let md: FileMetaData;
    try {
      md = await parquetMetadataAsync(fileBuffer(fd, size));
    } catch (e) {
      throw new BadInputError(`not a readable Parquet file (${(e as Error).message}); truncated?`, path);
    }
    return { fd, md, info: recordingInfo(path, md) };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** The metadata of a Parquet recording (meta line, poll count, content hash). */
export async function readParquetInfo(path: string): Promise<ParquetRecordingInfo> {
  const { fd, info } = await openFile(path);
  closeSync(fd);
  return info;
}

/** True for a path the Parquet reader and writer handle. */
export function isParquetPath(path: string): boolean {
  return path.toLowerCase().endsWith('.parquet');
}
