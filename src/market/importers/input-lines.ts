// Line access to third-party input files (plain or gzip), streamed, and their fingerprint for the
// provenance written into a recording's meta line.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { BadInputError } from '../../core/errors.ts';
import { LineSplitter, TextChunkReader } from '../recording/text-chunks.ts';

export interface InputLine {
  /** 1-based line number in the (decompressed) file. */
  readonly no: number;
  readonly text: string;
}

/** The lines of `path`, in batches. A truncated gzip file is refused (an import must be complete). */
export async function* inputLineBatches(path: string): AsyncGenerator<readonly InputLine[], void, undefined> {
  const reader = await TextChunkReader.open(path);
  const splitter = new LineSplitter(path);
  let no = 0;
  try {
    for (;;) {
      const chunk = await reader.next();
      if (chunk === undefined) break;
      const batch = splitter.push(chunk).map((text) => ({ no: ++no, text }));
      if (batch.length > 0) yield batch;
    }
    if (reader.end === 'truncated')
      throw new BadInputError(`gzip data ends early after line ${no} (the file is truncated)`, path);
    const rest = splitter.pending;
    if (rest.length > 0) yield [{ no: ++no, text: rest }];
  } finally {
    await reader.close();
  }
}

/** sha256 of the file's bytes as stored (hex). */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch (e) {
    throw new BadInputError(
      `cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      path,
    );
  }
  return hash.digest('hex');
}
