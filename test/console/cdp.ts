// Headless Debian chromium driven over the DevTools protocol (CDP), for the console's browser tests:
// the same chromium the report test uses (test/backtest/report-html.test.ts finds it the same way),
// started with --remote-debugging-port=0, one page target, a WebSocket client (undici's; Node 20 has
// no global WebSocket) and the few CDP calls the tests need. Console errors, uncaught exceptions and
// failed loads are collected for the "no errors" assertion.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'undici';
import { headlessArgs } from '../helpers/chromium.ts';

export { findChromium } from '../helpers/chromium.ts';

interface CdpMessage {
  readonly id?: number;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
}

export class Browser {
  readonly #child: ChildProcess;
  readonly #profile: string;
  readonly #ws: WebSocket;
  #seq = 0;
  readonly #waiting = new Map<
    number,
    { ok: (r: Record<string, unknown>) => void; fail: (e: Error) => void }
  >();
  /** Console errors, uncaught exceptions and failed network loads, as text. */
  readonly errors: string[] = [];
  readonly dialogs: string[] = [];
  readonly #onLoad: (() => void)[] = [];

  private constructor(child: ChildProcess, profile: string, ws: WebSocket) {
    this.#child = child;
    this.#profile = profile;
    this.#ws = ws;
    ws.addEventListener('message', (ev) => this.#onMessage(String(ev.data)));
  }

  static async launch(chromium: string): Promise<Browser> {
    const profile = mkdtempSync(join(tmpdir(), 'capibot-console-chromium-'));
    const child = spawn(
      chromium,
      [
        ...headlessArgs(profile),
        '--remote-debugging-address=127.0.0.1',
        '--remote-debugging-port=0',
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const browserWs = await new Promise<string>((ok, fail) => {
      let err = '';
      const timer = setTimeout(() => fail(new Error(`chromium did not start: ${err}`)), 30_000);
      child.stderr?.on('data', (c: Buffer) => {
        err += c.toString();
        const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
        if (m?.[1] !== undefined) {
          clearTimeout(timer);
          ok(m[1]);
        }
      });
      child.once('exit', (code) => fail(new Error(`chromium exited (${code}): ${err}`)));
    });
    const port = new URL(browserWs).port;
    let pageWs: string | undefined;
    for (let i = 0; i < 50 && pageWs === undefined; i++) {
      const list = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
        type: string;
        webSocketDebuggerUrl: string;
      }[];
      pageWs = list.find((t) => t.type === 'page')?.webSocketDebuggerUrl;
      if (pageWs === undefined) await new Promise((r) => setTimeout(r, 100));
    }
    if (pageWs === undefined) throw new Error('chromium has no page target');
    const ws = new WebSocket(pageWs);
    await new Promise<void>((ok, fail) => {
      ws.addEventListener('open', () => ok(), { once: true });
      ws.addEventListener('error', () => fail(new Error('CDP WebSocket failed')), { once: true });
    });
    const b = new Browser(child, profile, ws);
    await b.send('Runtime.enable');
    await b.send('Log.enable');
    await b.send('Network.enable');
    await b.send('Page.enable');
    return b;
  }

  #onMessage(text: string): void {
    const m = JSON.parse(text) as CdpMessage;
    if (m.id !== undefined) {
      const w = this.#waiting.get(m.id);
      this.#waiting.delete(m.id);
      if (m.error !== undefined) w?.fail(new Error(m.error.message));
      else w?.ok(m.result ?? {});
      return;
    }
    const p = m.params ?? {};
    switch (m.method) {
      case 'Runtime.exceptionThrown':
        this.errors.push(`exception: ${JSON.stringify(p['exceptionDetails'])}`);
        break;
      case 'Runtime.consoleAPICalled':
        if (p['type'] === 'error' || p['type'] === 'assert')
          this.errors.push(`console.${String(p['type'])}: ${JSON.stringify(p['args'])}`);
        break;
      case 'Log.entryAdded': {
        const e = p['entry'] as { level?: string; text?: string; url?: string } | undefined;
        if (e?.level === 'error') this.errors.push(`log: ${e.text ?? ''} ${e.url ?? ''}`);
        break;
      }
      case 'Page.javascriptDialogOpening':
        this.dialogs.push(String(p['message']));
        break;
      case 'Page.loadEventFired':
        for (const fn of this.#onLoad.splice(0)) fn();
        break;
      case undefined:
      default:
        break;
    }
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = ++this.#seq;
    return new Promise((ok, fail) => {
      this.#waiting.set(id, { ok, fail });
      this.#ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Every request of the page carries these headers (the console token). */
  async headers(h: Record<string, string>): Promise<void> {
    await this.send('Network.setExtraHTTPHeaders', { headers: h });
  }

  /** Navigates and waits for the load event. */
  async goto(url: string): Promise<void> {
    const loaded = new Promise<void>((ok) => this.#onLoad.push(ok));
    await this.send('Page.navigate', { url });
    await loaded;
  }

  /** The value of `expression` in the page (JSON-serialisable). */
  async eval<T>(expression: string): Promise<T> {
    const r = await this.send('Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true });
    if (r['exceptionDetails'] !== undefined)
      throw new Error(`evaluate failed: ${JSON.stringify(r['exceptionDetails'])}`);
    return (r['result'] as { value: T }).value;
  }

  /** Polls `expression` until it is truthy; returns its value, or throws after `timeoutMs`. */
  async waitFor<T>(expression: string, timeoutMs: number, everyMs = 25): Promise<T> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      // An expression that throws (the document is still being replaced) counts as not yet.
      const v = await this.eval<T>(`(() => { try { return (${expression}); } catch { return false; } })()`);
      if (v) return v;
      if (Date.now() > until) throw new Error(`timed out waiting for ${expression}`);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  async close(): Promise<void> {
    this.#ws.close();
    const exited = new Promise((r) => this.#child.once('exit', r));
    this.#child.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (this.#child.exitCode === null) this.#child.kill('SIGKILL');
    // Chromium's helper processes may still write into the profile for a moment after it exits.
    try {
      rmSync(this.#profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch {
      // a leftover temporary folder is not a test failure
    }
  }
}
