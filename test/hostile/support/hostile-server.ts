// A hostile HTTP/1.1 server written on raw TCP (node:net), so it can misbehave in ways node:http
// will not: close mid-headers, drip headers byte by byte, send garbage, stream forever. It reads
// each request (request line, headers, Content-Length body), counts it by path, answers
// market/time honestly, and hands every other request to the behaviour of the test.
import { createServer, type AddressInfo, type Socket } from 'node:net';

export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly body: string;
}

/** Misbehaves on `socket` for `req`. The socket is destroyed when the test closes the server. */
export type Behaviour = (socket: Socket, req: RawRequest) => void;

export interface HostileServer {
  readonly url: string;
  /** Requests received per path (counted once the request head and body were read). */
  count(path: string): number;
  setBehaviour(b: Behaviour): void;
  close(): Promise<void>;
}

const TIME_PATH = '/capi/v2/market/time';

export function httpResponse(status: number, headers: Record<string, string>, body: string): string {
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return `HTTP/1.1 ${status} X\r\n${head}\r\n${body}`;
}

export function jsonResponse(status: number, body: string, contentType = 'application/json'): string {
  return httpResponse(
    status,
    { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) },
    body,
  );
}

export async function startHostileServer(initial: Behaviour): Promise<HostileServer> {
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  let behaviour = initial;

  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = buf.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? '0');
        if (buf.length < end + 4 + length) return;
        const body = buf.subarray(end + 4, end + 4 + length).toString('utf8');
        buf = buf.subarray(end + 4 + length);
        const [method = '', target = ''] = head.split('\r\n')[0]?.split(' ') ?? [];
        const path = target.split('?')[0] ?? '';
        counts.set(path, (counts.get(path) ?? 0) + 1);
        if (path === TIME_PATH) {
          socket.write(jsonResponse(200, JSON.stringify({ timestamp: Date.now() })));
          continue;
        }
        socket.off('data', onData);
        behaviour(socket, { method, path, body });
        return;
      }
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    count: (path) => counts.get(path) ?? 0,
    setBehaviour: (b) => {
      behaviour = b;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
