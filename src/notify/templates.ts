// The body of the POST for each format: generic JSON, the Telegram bot API's sendMessage, a Discord
// or Slack incoming webhook, ntfy (plain text with a Title header). Texts are cut to what each
// service accepts (Telegram 4096, Discord 2000 characters, ntfy's 4 KiB message).
import type { Notice, NotifyTarget } from './types.ts';

export interface WebhookRequest {
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

const cut = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/** Header values: printable ASCII only (a title with other characters is transliterated to `?`). */
const headerValue = (s: string): string => cut(s.replace(/[^\x20-\x7e]/g, '?'), 200);

export function renderNotice(n: Notice, t: Pick<NotifyTarget, 'format' | 'chatId'>): WebhookRequest {
  const json = { 'Content-Type': 'application/json' };
  const line = `${n.title}\n${n.text}`;
  switch (t.format) {
    case 'json':
      return {
        headers: json,
        body: JSON.stringify({
          source: 'capibot',
          event: n.kind,
          at: new Date(n.at).toISOString(),
          title: n.title,
          text: n.text,
          data: n.data,
        }),
      };
    case 'telegram':
      // Plain text (no parse_mode): nothing in a strategy id or a reason can break the markup.
      return {
        headers: json,
        body: JSON.stringify({
          chat_id: t.chatId ?? '',
          text: cut(line, 4096),
          disable_web_page_preview: true,
        }),
      };
    case 'discord':
      return {
        headers: json,
        body: JSON.stringify({ content: cut(line, 2000), allowed_mentions: { parse: [] } }),
      };
    case 'slack':
      return { headers: json, body: JSON.stringify({ text: cut(line, 3000) }) };
    case 'ntfy':
      return {
        headers: {
          'Content-Type': 'text/plain; charset=utf-8',
          Title: headerValue(n.title),
          Tags: n.kind,
          Priority: n.kind === 'halt' || n.kind === 'kill' ? 'high' : 'default',
        },
        body: cut(n.text, 4000),
      };
  }
}
