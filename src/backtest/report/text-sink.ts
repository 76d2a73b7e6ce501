// Where a report file's text goes as it is written: a string in memory (buildReport, tests) or a
// file written through a temporary name and renamed once complete (writeReport), so a long run's
// report is never one string in memory and a reader never sees half a file.
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { InvariantViolation } from '../../core/errors.ts';

export interface TextSink {
  write(text: string): void;
}

/** Collects the text in memory. */
export class StringSink implements TextSink {
  readonly #parts: string[] = [];

  write(text: string): void {
    this.#parts.push(text);
  }

  text(): string {
    return this.#parts.join('');
  }
}

/** Bytes buffered before a write to the file. */
const BLOCK = 1 << 20;

let tmpSequence = 0;

/**
 * Writes `path` through `path.<pid>-<thread>-<n>.tmp`: `commit` renames it into place, `abort`
 * removes it. Synchronous, in blocks of about a megabyte.
 */
export class FileSink implements TextSink {
  readonly path: string;
  readonly #tmp: string;
  #fd: number | undefined;
  #parts: string[] = [];
  #buffered = 0;

  constructor(path: string) {
    this.path = path;
    // Unique per process, thread and sink: sweep workers are threads of one process.
    this.#tmp = `${path}.${process.pid}-${threadId}-${tmpSequence++}.tmp`;
    this.#fd = openSync(this.#tmp, 'w');
  }

  write(text: string): void {
    this.#parts.push(text);
    this.#buffered += text.length;
    if (this.#buffered >= BLOCK) this.#flush();
  }

  #flush(): void {
    if (this.#fd === undefined) throw new InvariantViolation(`${this.path}: written after it was closed`);
    const bytes = Buffer.from(this.#parts.join(''), 'utf8');
    for (let at = 0; at < bytes.length;) at += writeSync(this.#fd, bytes, at, bytes.length - at);
    this.#parts = [];
    this.#buffered = 0;
  }

  /** Writes what is buffered and renames the file into place. */
  commit(): void {
    this.#flush();
    closeSync(this.#fd!);
    this.#fd = undefined;
    renameSync(this.#tmp, this.path);
  }

  /** Removes the temporary file (nothing is renamed into place). */
  abort(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    rmSync(this.#tmp, { force: true });
  }
}
