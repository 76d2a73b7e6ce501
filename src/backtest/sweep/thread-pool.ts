// Sweep worker threads that take jobs on demand (`capibot worker`: jobs arrive one by one from a
// queue), where pool.ts runs a fixed list. Each thread runs one job at a time, the very worker.ts
// the local sweep uses; a thread that dies fails its job and is replaced.
import type { Worker } from 'node:worker_threads';
import { sweepWorker, workerFailure } from './pool.ts';
import type { SweepJob, SweepReply } from './protocol.ts';

interface Slot {
  readonly worker: Worker;
  pending?: { resolve: (r: SweepReply) => void; reject: (e: Error) => void };
}

export class SweepThreads {
  readonly #size: number;
  readonly #idle: Slot[] = [];
  readonly #all = new Set<Slot>();
  readonly #waiting: ((slot: Slot) => void)[] = [];
  #closed = false;

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  get size(): number {
    return this.#size;
  }

  /** Runs one job on a free thread (waiting for one when all are busy). */
  async run(job: SweepJob): Promise<SweepReply> {
    const slot = await this.#acquire();
    try {
      return await new Promise<SweepReply>((resolve, reject) => {
        slot.pending = { resolve, reject };
        slot.worker.postMessage(job);
      });
    } finally {
      delete slot.pending;
      this.#release(slot);
    }
  }

  /** Terminates every thread (a job still running is abandoned: its promise rejects). */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#all];
    this.#all.clear();
    this.#idle.length = 0;
    await Promise.all(all.map((s) => s.worker.terminate()));
  }

  async #acquire(): Promise<Slot> {
    if (this.#closed) throw new Error('the sweep threads are closed');
    const idle = this.#idle.pop();
    if (idle !== undefined) return idle;
    if (this.#all.size < this.#size) return this.#spawn();
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  #release(slot: Slot): void {
    if (!this.#all.has(slot)) {
      // The thread died: a waiter gets a fresh one.
      const next = this.#waiting.shift();
      if (next !== undefined && !this.#closed) next(this.#spawn());
      return;
    }
    const next = this.#waiting.shift();
    if (next !== undefined) next(slot);
    else this.#idle.push(slot);
  }

  #spawn(): Slot {
    const slot: Slot = { worker: sweepWorker() };
    this.#all.add(slot);
    const fail = (e: Error): void => {
      this.#all.delete(slot);
      const i = this.#idle.indexOf(slot);
      if (i >= 0) this.#idle.splice(i, 1);
      slot.pending?.reject(workerFailure(e));
    };
    slot.worker.on('message', (reply: SweepReply) => slot.pending?.resolve(reply));
    slot.worker.on('error', fail);
    slot.worker.on('exit', (code) => {
      if (!this.#closed) fail(new Error(`a sweep worker thread exited (code ${code})`));
    });
    return slot;
  }
}
