// Webhook delivery (src/notify/) against local capture servers on 127.0.0.1: the body of each format,
// retries with back-off after a 500, a hanging server (timeout, then given up), 4xx not retried,
// the per-minute rate, a full queue dropping fills first, metrics for every outcome, and `send`
// returning at once whatever the webhook does.
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { notifyMetrics } from '../../src/notify/metrics.ts';
import { createNotifier, type Notifier } from '../../src/notify/notifier.ts';
import { resolveNotifyTargets } from '../../src/notify/targets.ts';
import { renderNotice } from '../../src/notify/templates.ts';
import type { Notice, NotifyTarget } from '../../src/notify/types.ts';
import { deliver } from '../../src/notify/webhook.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { parseConfigText } from '../../src/config/load.ts';
import { sendJson, startLocalServer, startSilentServer, type LocalServer } from '../helpers/local-server.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function capture(status = 200): Promise<LocalServer> {
  const s = await startLocalServer((_req, res) => sendJson(res, status, { ok: status < 400 }));
  closers.push(() => s.close());
  return s;
}

const notice = (kind: Notice['kind'] = 'halt', text = 'trading ACTIVE → HALTED: drawdown'): Notice => ({
  kind,
  at: Date.UTC(2026, 0, 1),
  title: 'capibot: HALTED',
  text,
  data: { to: 'HALTED' },
});

const target = (url: string, over: Partial<NotifyTarget> = {}): NotifyTarget => ({
  name: 'ops',
  format: 'json',
  url,
  events: ['fill', 'halt', 'kill', 'reconcile', 'disabled', 'daily'],
  ...over,
});

const fast = { maxPerMinute: 600, queueLimit: 100, timeoutMs: 300, retries: 2, retryBackoffMs: 20 };

function notifier(targets: NotifyTarget[], registry: Registry, settings = fast): Notifier {
  const n = createNotifier({ targets, settings, metrics: notifyMetrics(registry) });
  closers.push(() => n.close());
  return n;
}

async function counter(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number> {
  const m = (await registry.getMetricsAsJSON()).find((x) => x.name === name);
  const values = (m?.values ?? []) as { value: number; labels: Record<string, string | number> }[];
  return values
    .filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))
    .reduce((a, v) => a + v.value, 0);
}

describe('webhook templates', () => {
  it('renders the JSON, Telegram, Discord, Slack and ntfy bodies', () => {
    const n = notice();
    const json = JSON.parse(renderNotice(n, { format: 'json' }).body) as Record<string, unknown>;
    expect(json).toMatchObject({
      source: 'capibot',
      event: 'halt',
      title: 'capibot: HALTED',
      data: { to: 'HALTED' },
    });
    expect(json['at']).toBe('2026-01-01T00:00:00.000Z');
    expect(JSON.parse(renderNotice(n, { format: 'telegram', chatId: '-100123' }).body)).toMatchObject({
      chat_id: '-100123',
      text: 'capibot: HALTED\ntrading ACTIVE → HALTED: drawdown',
    });
    expect(JSON.parse(renderNotice(n, { format: 'discord' }).body)).toMatchObject({
      content: 'capibot: HALTED\ntrading ACTIVE → HALTED: drawdown',
      allowed_mentions: { parse: [] },
    });
    expect(JSON.parse(renderNotice(n, { format: 'slack' }).body)).toEqual({
      text: 'capibot: HALTED\ntrading ACTIVE → HALTED: drawdown',
    });
    const ntfy = renderNotice({ ...n, title: 'capibot: HALTED → ✓' }, { format: 'ntfy' });
    expect(ntfy.body).toBe('trading ACTIVE → HALTED: drawdown');
    expect(ntfy.headers).toMatchObject({ Title: 'capibot: HALTED ? ?', Priority: 'high', Tags: 'halt' });
    // Long texts are cut to what the service takes.
    const long = renderNotice(notice('fill', 'x'.repeat(10_000)), { format: 'discord' });
    expect((JSON.parse(long.body) as { content: string }).content.length).toBe(2000);
  });
});

describe('webhook delivery', () => {
  it('posts each notice to the targets that take its kind', async () => {
    const a = await capture();
    const b = await capture();
    const registry = new Registry();
    const n = notifier(
      [target(a.url), target(`${b.url}/hook`, { name: 'fills', format: 'slack', events: ['fill'] })],
      registry,
    );
    n.send(notice('halt'));
    n.send(notice('fill', 'a fill'));
    await n.idle();
    expect(a.requests.map((r) => (JSON.parse(r.body) as { event: string }).event)).toEqual(['halt', 'fill']);
    expect(a.requests[0]?.headers['content-type']).toBe('application/json');
    expect(b.requests.map((r) => r.path)).toEqual(['/hook']);
    expect(JSON.parse(b.requests[0]?.body ?? '')).toEqual({ text: 'capibot: HALTED\na fill' });
    expect(await counter(registry, 'capibot_notify_sent_total', { target: 'ops' })).toBe(2);
    expect(await counter(registry, 'capibot_notify_sent_total', { target: 'fills' })).toBe(1);
  });

  it('retries a 500 with back-off and succeeds when the server recovers', async () => {
    const s = await startLocalServer((_req, res, n) => sendJson(res, n <= 2 ? 500 : 200, {}));
    closers.push(() => s.close());
    const registry = new Registry();
    const n = notifier([target(s.url)], registry);
    n.send(notice());
    await n.idle();
    expect(s.requests).toHaveLength(3);
    expect(await counter(registry, 'capibot_notify_sent_total')).toBe(1);
    expect(await counter(registry, 'capibot_notify_retries_total')).toBe(2);
    expect(await counter(registry, 'capibot_notify_failed_total')).toBe(0);
  });

  it('gives up on a server that keeps answering 500, counts it, and carries on with the next', async () => {
    const s = await capture(500);
    const registry = new Registry();
    const n = notifier([target(s.url)], registry);
    n.send(notice());
    n.send(notice('kill', 'second'));
    await n.idle();
    expect(s.requests).toHaveLength(6); // 1 + 2 retries, twice
    expect(await counter(registry, 'capibot_notify_failed_total', { reason: 'http_5xx' })).toBe(2);
  });

  it('times out on a server that never answers, without holding up the caller', async () => {
    const silent = await startSilentServer();
    closers.push(() => silent.close());
    const registry = new Registry();
    const n = notifier([target(silent.url)], registry, { ...fast, timeoutMs: 200, retries: 1 });
    const started = performance.now();
    for (let i = 0; i < 5; i++) n.send(notice());
    // send() only queues: it returned long before one timeout.
    expect(performance.now() - started).toBeLessThan(200);
    await n.idle();
    expect(silent.connections()).toBeGreaterThanOrEqual(2);
    expect(await counter(registry, 'capibot_notify_failed_total', { reason: 'timeout' })).toBe(5);
  }, 20_000);

  it('does not retry a 4xx other than 429, and honours Retry-After on a 429', async () => {
    const s = await capture(403);
    const o1 = await deliver(s.url, renderNotice(notice(), { format: 'json' }), {
      timeoutMs: 500,
      retries: 3,
      backoffMs: 10,
    });
    expect(o1).toEqual({ ok: false, attempts: 1, reason: 'HTTP 403' });
    const waits: number[] = [];
    const busy = await startLocalServer((_req, res, n) =>
      sendJson(res, n === 1 ? 429 : 200, {}, { 'retry-after': '2' }),
    );
    closers.push(() => busy.close());
    const o2 = await deliver(busy.url, renderNotice(notice(), { format: 'json' }), {
      timeoutMs: 500,
      retries: 3,
      backoffMs: 10,
      sleep: (ms) => {
        waits.push(ms);
        return Promise.resolve();
      },
    });
    expect(o2).toEqual({ ok: true, attempts: 2, status: 200 });
    expect(waits).toEqual([2000]);
  });

  it('fails over a closed port as a network error', async () => {
    const o = await deliver('http://127.0.0.1:1/', renderNotice(notice(), { format: 'json' }), {
      timeoutMs: 500,
      retries: 0,
      backoffMs: 10,
    });
    expect(o).toMatchObject({ ok: false, reason: 'network error' });
  });

  it('keeps to the per-minute rate, and a full queue drops fills before anything else', async () => {
    const s = await capture();
    const registry = new Registry();
    const n = notifier([target(s.url)], registry, { ...fast, maxPerMinute: 2, queueLimit: 3 });
    n.send(notice('fill', 'f1'));
    n.send(notice('fill', 'f2'));
    n.send(notice('halt', 'h1'));
    n.send(notice('fill', 'f3'));
    n.send(notice('kill', 'k1'));
    n.send(notice('fill', 'f4'));
    await new Promise((r) => setTimeout(r, 300));
    // f1 left at once; the queue (3) then held f2 h1 f3: k1 and f4 each pushed out the oldest fill
    // (f2, f3), so h1 went second; the rest waits for the minute to pass.
    expect(s.requests).toHaveLength(2);
    await n.close();
    const texts = s.requests.map((r) => (JSON.parse(r.body) as { text: string }).text);
    expect(texts).toEqual(['f1', 'h1']);
    expect(await counter(registry, 'capibot_notify_dropped_total', { reason: 'queue_full' })).toBe(2);
    // k1 and f4 were still queued at close: dropped unsent, and counted.
    expect(await counter(registry, 'capibot_notify_dropped_total', { reason: 'stopped' })).toBe(2);
  });
});

describe('notify config', () => {
  const yaml = (targets: string) =>
    parseConfigText(
      ['strategies:', '  - id: a', '    file: x.ts', 'notify:', '  targets:', targets, ''].join('\n'),
      'n.yaml',
      {},
    );

  it('reads URLs from the environment only, and refuses a missing or non-http one', () => {
    const c = yaml('    - { name: tg, format: telegram, urlEnv: TG_URL, chatId: "42" }');
    expect(() => resolveNotifyTargets(c.notify, {})).toThrow(ConfigError);
    expect(() => resolveNotifyTargets(c.notify, {})).toThrow(/TG_URL is not set/);
    expect(() => resolveNotifyTargets(c.notify, { TG_URL: 'file:///etc/passwd' })).toThrow(/http\(s\) URL/);
    const [t] = resolveNotifyTargets(c.notify, { TG_URL: 'https://api.telegram.org/bot123:abc/sendMessage' });
    expect(t).toMatchObject({ name: 'tg', format: 'telegram', chatId: '42' });
    expect(t?.events).toHaveLength(6);
    expect(() => yaml('    - { name: tg, format: telegram, urlEnv: TG_URL }')).toThrow(/chatId/);
    expect(() => yaml('    - { name: tg, url: "https://x" }')).toThrow();
  });
});
