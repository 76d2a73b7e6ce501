// A tiny HTTP server on 127.0.0.1 for adapter tests: records every request exactly as received
// (raw path with query, headers, body bytes) and answers through a per-test handler.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  /** Raw request target as received: path plus `?query`. */
  readonly url: string;
  readonly path: string;
  /** Raw query text after `?` ('' for none). */
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  /** The body bytes exactly as received. */
  readonly rawBody: Buffer;
  readonly body: string;
}

/** `n` counts requests to the same path (1 for the first). */
export type Handler = (req: RecordedRequest, res: ServerResponse, n: number) => void | Promise<void>;

export interface LocalServer {
  readonly url: string;
  readonly port: number;
  readonly requests: RecordedRequest[];
  /** Requests to one path. */
  to(path: string): RecordedRequest[];
  setHandler(h: Handler): void;
  close(): Promise<void>;
}

export async function startLocalServer(handler: Handler): Promise<LocalServer> {
  const requests: RecordedRequest[] = [];
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  let current = handler;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '/';
      const q = url.indexOf('?');
      const rawBody = Buffer.concat(chunks);
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        url,
        path: q === -1 ? url : url.slice(0, q),
        query: q === -1 ? '' : url.slice(q + 1),
        headers: req.headers,
        rawBody,
        body: rawBody.toString('utf8'),
      };
      requests.push(rec);
      const n = (counts.get(rec.path) ?? 0) + 1;
      counts.set(rec.path, n);
      Promise.resolve(current(rec, res, n)).catch((err: unknown) => {
        if (!res.headersSent) sendJson(res, 599, { testServerError: String(err) });
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    to: (path) => requests.filter((r) => r.path === path),
    setHandler: (h) => {
      current = h;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Answers with a JSON value (or raw text) and a content type. */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

/** A TCP server that accepts connections, reads whatever comes, and never answers. */
export async function startSilentServer(): Promise<{
  url: string;
  connections: () => number;
  close: () => Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((s) => {
    accepted++;
    sockets.add(s);
    s.on('data', () => undefined);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => accepted,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
