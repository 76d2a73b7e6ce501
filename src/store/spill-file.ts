// An append-only file of text lines outside the heap: where a backtest's retired rows go (issue #24:
// a backtest's memory must not grow with its orders). Synchronous, like the store it serves. Lines
// are encoded at once into one reused block outside the JavaScript heap and written when it is full;
// a read flushes first, then streams the file in chunks, so reading it back never holds more than one
// chunk and one line. (Lines used to wait as strings until a megabyte of them was written: a long
// backtest's retired rows then all lived long enough to be promoted to V8's old generation, whose
// size follows what it promotes. Encoded at once, the strings die young.)
//
// The file is made on the first append, in a fresh directory under os.tmpdir() (TMPDIR), and its name
// is removed at once: the open descriptor keeps the data until close(), and nothing is left behind
// whatever ends the process (a crash, a kill, a test runner's worker torn down). Where a system
// refuses to remove an open file (Windows), the directory is removed by close(), or by an exit hook
// for a store never closed.
import {
  closeSync,
  mkdtempSync,
  openSync,
  readSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StoreError } from '../core/errors.ts';

/** Bytes buffered before a write, and read per chunk. */
const BLOCK = 1 << 20;

/** A line whose UTF-8 form cannot fit in the space left of a block (3 bytes per UTF-16 code unit at most). */
const MAX_BYTES_PER_CHAR = 3;

/** Spill directories still open in this process (removed at exit). */
const open = new Set<string>();
let hooked = false;

function removeAll(): void {
  for (const dir of open) rmSync(dir, { recursive: true, force: true });
  open.clear();
}

export class SpillFile {
  readonly #name: string;
  #dir: string | undefined;
  #fd: number | undefined;
  /** The block being filled (made on the first append, kept for the file's life). */
  #block: Buffer | undefined;
  /** Bytes of `#block` in use. */
  #used = 0;
  #lines = 0;
  #bytes = 0;

  /** `name` names the file inside its directory (errors quote it). */
  constructor(name: string) {
    this.#name = name;
  }

  /** Lines appended since the last clear. */
  get lines(): number {
    return this.#lines;
  }

  /** Bytes of the file (after the next flush: the block being filled included). */
  get bytes(): number {
    return this.#bytes + this.#used;
  }

  /** Appends one line (no newline inside); returns its index (0-based, since the last clear). */
  append(line: string): number {
    const worst = line.length * MAX_BYTES_PER_CHAR + 1;
    if (worst > BLOCK) {
      // Longer than a block could ever hold: written on its own, after what waits.
      this.#flush();
      this.#write(Buffer.from(line + '\n', 'utf8'));
    } else {
      if (this.#used + worst > BLOCK) this.#flush();
      const block = (this.#block ??= Buffer.allocUnsafe(BLOCK));
      this.#used += block.write(line, this.#used, 'utf8');
      block[this.#used++] = 10;
    }
    return this.#lines++;
  }

  #file(): number {
    if (this.#fd !== undefined) return this.#fd;
    try {
      this.#dir = mkdtempSync(join(tmpdir(), 'capibot-spill-'));
      open.add(this.#dir);
      if (!hooked) {
        hooked = true;
        process.once('exit', removeAll);
      }
      const path = join(this.#dir, this.#name);
      this.#fd = openSync(path, 'w+');
      try {
        unlinkSync(path);
        rmdirSync(this.#dir);
        open.delete(this.#dir);
        this.#dir = undefined;
      } catch {
        // Kept until close() or the exit hook.
      }
      return this.#fd;
    } catch (e) {
      throw new StoreError(`cannot create the spill file ${this.#name} under ${tmpdir()}: ${String(e)}`);
    }
  }

  #flush(): void {
    if (this.#used === 0 || this.#block === undefined) return;
    this.#write(this.#block.subarray(0, this.#used));
    this.#used = 0;
  }

  /** Writes `buf` at the end of the file. */
  #write(buf: Buffer): void {
    const fd = this.#file();
    let done = 0;
    while (done < buf.length) done += writeSync(fd, buf, done, buf.length - done, this.#bytes + done);
    this.#bytes += buf.length;
  }

  /** Calls `each` with every line and its index, in order. */
  forEach(each: (line: string, index: number) => void): void {
    this.#flush();
    if (this.#fd === undefined) return;
    const chunk = Buffer.allocUnsafe(BLOCK);
    let carry: Buffer | undefined;
    let index = 0;
    for (let at = 0; at < this.#bytes;) {
      const n = readSync(this.#fd, chunk, 0, Math.min(BLOCK, this.#bytes - at), at);
      if (n === 0) break;
      at += n;
      const data = carry === undefined ? chunk.subarray(0, n) : Buffer.concat([carry, chunk.subarray(0, n)]);
      let from = 0;
      for (let nl = data.indexOf(10, from); nl >= 0; nl = data.indexOf(10, from)) {
        each(data.toString('utf8', from, nl), index++);
        from = nl + 1;
      }
      // The unfinished line is copied: the chunk is read into again.
      carry = from < data.length ? Buffer.from(data.subarray(from)) : undefined;
    }
  }

  /** Forgets every line (the file stays, empty, for the next appends). */
  clear(): void {
    this.#used = 0;
    this.#lines = 0;
    this.#bytes = 0;
  }

  /** Removes the file and its directory. */
  close(): void {
    this.clear();
    this.#block = undefined;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    if (this.#dir !== undefined) {
      rmSync(this.#dir, { recursive: true, force: true });
      open.delete(this.#dir);
    }
    this.#dir = undefined;
  }
}
