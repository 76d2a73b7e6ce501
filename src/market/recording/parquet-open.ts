// openRecording for a `.parquet` file (reader.ts dispatches here): the OpenedRecording interface
// over GroupReader (parquet-reader.ts), one row group per batch.
import { BadInputError } from '../../core/errors.ts';
import type { RecordedPoll } from '../../core/market.ts';
import { openFile } from './parquet-file.ts';
import { GroupReader } from './parquet-reader.ts';
import type { OpenedRecording } from './reader.ts';

/** openRecording for a `.parquet` file (reader.ts dispatches here). */
export async function openParquetRecording(path: string): Promise<OpenedRecording> {
  const { fd, md, info } = await openFile(path);
  const reader = new GroupReader(path, fd, md, info.groupHashes);
  let closed = false;
  let taken = false;
  const close = (): Promise<void> => {
    if (!closed) reader.close();
    closed = true;
    return Promise.resolve();
  };
  const nextBatch = (): RecordedPoll[] | undefined => {
    if (closed) return undefined;
    try {
      for (;;) {
        const b = reader.next();
        if (b === undefined) {
          void close();
          return undefined;
        }
        if (b.length > 0) return b;
      }
    } catch (e) {
      void close();
      throw e;
    }
  };
  const once = (what: string): void => {
    if (taken)
      throw new BadInputError(`the polls of an opened recording can be iterated only once (${what})`, path);
    taken = true;
  };
  return {
    path,
    meta: info.meta,
    polls: {
      [Symbol.asyncIterator]: () => {
        once('polls');
        let batch: readonly RecordedPoll[] = [];
        let i = 0;
        return {
          next: (): Promise<IteratorResult<RecordedPoll>> => {
            try {
              while (i >= batch.length) {
                const b = nextBatch();
                if (b === undefined) return Promise.resolve({ done: true, value: undefined });
                batch = b;
                i = 0;
              }
              return Promise.resolve({ done: false, value: batch[i++] as RecordedPoll });
            } catch (e) {
              return Promise.reject(e instanceof Error ? e : new Error(String(e)));
            }
          },
          return: async (): Promise<IteratorResult<RecordedPoll>> => {
            await close();
            return { done: true, value: undefined };
          },
        };
      },
    },
    batches: {
      [Symbol.asyncIterator]: () => {
        once('batches');
        return {
          next: (): Promise<IteratorResult<readonly RecordedPoll[]>> => {
            try {
              const b = nextBatch();
              return Promise.resolve(
                b === undefined ? { done: true, value: undefined } : { done: false, value: b },
              );
            } catch (e) {
              return Promise.reject(e instanceof Error ? e : new Error(String(e)));
            }
          },
          return: async (): Promise<IteratorResult<readonly RecordedPoll[]>> => {
            await close();
            return { done: true, value: undefined };
          },
        };
      },
    },
    close,
  };
}
