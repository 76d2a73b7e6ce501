// Server-Sent Events: each connected page gets `event: snapshot` messages (the whole snapshot JSON),
// a comment line every 15 s to keep proxies from closing the stream, and a `retry` hint so the
// browser reconnects by itself. A client that does not read (its buffer grows past 4 MiB) is dropped
// rather than letting the process buffer without bound.
import type { ServerResponse } from 'node:http';

const MAX_BUFFERED = 4 * 1024 * 1024;

export class SseHub {
  readonly #clients = new Set<ServerResponse>();
  readonly #maxClients: number;
  readonly #ping: NodeJS.Timeout;

  constructor(maxClients = 32, pingMs = 15_000) {
    this.#maxClients = maxClients;
    this.#ping = setInterval(() => this.#write(': ping\n\n'), pingMs);
    this.#ping.unref();
  }

  get size(): number {
    return this.#clients.size;
  }

  /** Starts the stream on `res` with a first message; false when the hub is full. */
  add(res: ServerResponse, first: { event: string; data: string }): boolean {
    if (this.#clients.size >= this.#maxClients) return false;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      // nginx: do not buffer the stream.
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 2000\n\n');
    res.write(frame(first.event, first.data));
    this.#clients.add(res);
    res.once('close', () => this.#clients.delete(res));
    return true;
  }

  broadcast(event: string, data: string): void {
    this.#write(frame(event, data));
  }

  #write(text: string): void {
    for (const res of this.#clients) {
      if (res.writableLength > MAX_BUFFERED) {
        this.#clients.delete(res);
        res.destroy();
        continue;
      }
      res.write(text);
    }
  }

  close(): void {
    clearInterval(this.#ping);
    for (const res of this.#clients) res.end();
    this.#clients.clear();
  }
}

/** One message; `data` is JSON (no raw newlines), so a single data line holds it. */
function frame(event: string, data: string): string {
  return `event: ${event}\ndata: ${data.replace(/\n/g, '\\n')}\n\n`;
}
