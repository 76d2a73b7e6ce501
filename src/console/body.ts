// Request bodies of the control routes: small JSON objects. Anything larger than `limit` bytes is
// refused (413) as soon as the declared length or the bytes read pass it; bad JSON is a 400. The
// body is never kept beyond the limit, whatever the client sends.
import type { IncomingMessage } from 'node:http';

export const BODY_LIMIT = 4 * 1024;

export type BodyResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly status: 400 | 413; readonly error: string };

export function readJsonBody(req: IncomingMessage, limit = BODY_LIMIT): Promise<BodyResult> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && !(Number(declared) <= limit))
    return Promise.resolve({ ok: false, status: 413, error: `body larger than ${limit} bytes` });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: BodyResult): void => {
      if (done) return;
      done = true;
      req.off('data', onData);
      resolve(r);
    };
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size > limit) {
        // Stop buffering; the rest is discarded as it arrives (the answer closes the connection).
        chunks.length = 0;
        req.resume();
        finish({ ok: false, status: 413, error: `body larger than ${limit} bytes` });
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.once('error', () => finish({ ok: false, status: 400, error: 'the request broke off' }));
    req.once('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        finish({ ok: true, value: text === '' ? {} : (JSON.parse(text) as unknown) });
      } catch {
        finish({ ok: false, status: 400, error: 'the body is not valid JSON' });
      }
    });
  });
}
