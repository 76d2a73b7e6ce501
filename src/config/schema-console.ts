// The `console:` and `notify:` sections of the config (see docs/console.md). Like the credentials,
// secrets never appear here: the console's tokens and the webhook URLs (which embed the bot token of
// Telegram, the secret path of a Discord or Slack webhook, an ntfy topic) are read from the
// environment variables these fields name.
import { z } from 'zod';
import {
  bool,
  envVariableName,
  nonNegativeInt,
  oneOf,
  port,
  positiveInt,
  text,
  textWithDefault,
} from './fields.ts';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const envName = (description: string, def: string) =>
  envVariableName(ENV_NAME, 'an environment variable name ([A-Za-z_][A-Za-z0-9_]*)', description, def);

export const DEFAULT_CONSOLE_TOKEN_ENV = 'CAPIBOT_CONSOLE_TOKEN';
export const DEFAULT_CONSOLE_READ_TOKEN_ENV = 'CAPIBOT_CONSOLE_READ_TOKEN';

/** An http(s) origin: scheme, host and optional port, nothing else. */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

export const ConsoleSchema = z
  .strictObject({
    enabled: bool(
      'Serve the web console (live state, fills, PnL, equity chart, event log; pause/resume and the kill switch) while `capibot run` runs. See docs/console.md.',
      false,
    ),
    host: textWithDefault(
      'Address to bind. Anything but a loopback address needs the control or read-only token set in the environment (refused at start otherwise); put it behind a reverse proxy with TLS (docs/operations.md).',
      '127.0.0.1',
    ),
    port: port('Port to bind (0 = any free port, said at start).', 8780),
    tokenEnv: envName(
      'Name of the environment variable holding the control token (see and act: pause/resume, kill switch). At least 16 characters. Unset on a loopback address: a random token is made at start and said once on the terminal.',
      DEFAULT_CONSOLE_TOKEN_ENV,
    ),
    readTokenEnv: envName(
      'Name of the environment variable holding the read-only token (see, never act). At least 16 characters. Optional.',
      DEFAULT_CONSOLE_READ_TOKEN_ENV,
    ),
    allowedOrigins: z
      .array(
        z
          .string({ error: 'expected an origin such as https://bot.example.com' })
          .regex(ORIGIN, { error: 'expected an origin such as https://bot.example.com (no path)' })
          .describe('One origin (scheme://host[:port]).'),
        { error: 'expected a list of origins' },
      )
      .default([])
      .describe(
        'Extra origins a mutating request may come from, besides the one the Host header names (e.g. when a reverse proxy rewrites Host). Default: [].',
      ),
  })
  .describe('The web console (docs/console.md). Off unless enabled; loopback only unless a token is set.');

export const NOTIFY_EVENTS = ['fill', 'halt', 'kill', 'reconcile', 'disabled', 'daily'] as const;
export type NotifyEventKind = (typeof NOTIFY_EVENTS)[number];

const TargetSchema = z
  .strictObject({
    name: z
      .string({ error: 'expected a name of 1-32 characters [A-Za-z0-9_-]' })
      .regex(/^[A-Za-z0-9_-]{1,32}$/, { error: 'expected a name of 1-32 characters [A-Za-z0-9_-]' })
      .describe('Name of this target, in logs and metrics labels. Required.'),
    format: oneOf(
      ['json', 'telegram', 'discord', 'slack', 'ntfy'],
      'Body of the POST: `json` (generic: event, at, text, data), or the shape the Telegram bot API (sendMessage), a Discord or Slack incoming webhook, or ntfy expects.',
      'json',
    ),
    urlEnv: envName(
      'Name of the environment variable holding the URL to POST to (it usually embeds a secret: the bot token, the webhook path, the topic). Required in practice; unset at start = refused.',
      'CAPIBOT_NOTIFY_URL',
    ),
    chatId: text(
      'Telegram only: the chat_id to send to (not a secret). Required with format telegram.',
    ).optional(),
    events: z
      .array(
        z
          .enum(NOTIFY_EVENTS, { error: `expected one of ${NOTIFY_EVENTS.join(', ')}` })
          .describe('One event kind.'),
        {
          error: 'expected a list of event kinds',
        },
      )
      .default([...NOTIFY_EVENTS])
      .describe(`Which events this target receives: ${NOTIFY_EVENTS.join(', ')}. Default: all of them.`),
  })
  .refine((t) => t.format !== 'telegram' || t.chatId !== undefined, {
    error: 'format telegram needs chatId',
    path: ['chatId'],
  })
  .describe('One webhook target.');

export const NotifySchema = z
  .strictObject({
    targets: z
      .array(TargetSchema, { error: 'expected a list of notification targets' })
      .default([])
      .describe('Webhook targets; none = no notifications. Default: [].'),
    maxPerMinute: positiveInt(
      'Per target: at most this many messages a minute; more are dropped (counted in capibot_notify_dropped_total), never queued without bound.',
      20,
      600,
    ),
    queueLimit: positiveInt(
      'Per target: messages waiting at most; the oldest is dropped beyond.',
      100,
      10_000,
    ),
    timeoutMs: positiveInt('Time allowed for one POST, from sending to the reply.', 5_000, 60_000),
    retries: nonNegativeInt(
      'Retries after a failed POST (timeout, network error, 5xx, 429), with doubling back-off; a 4xx other than 429 is not retried.',
      3,
      10,
    ),
    retryBackoffMs: positiveInt(
      'First back-off delay before a retry; doubles with each attempt.',
      1_000,
      600_000,
    ),
    dailySummaryUtcHour: z
      .number({ error: 'expected an hour from 0 to 23' })
      .int({ error: 'expected an hour from 0 to 23' })
      .min(0, { error: 'expected an hour from 0 to 23' })
      .max(23, { error: 'expected an hour from 0 to 23' })
      .default(0)
      .describe('UTC hour at which the daily summary is sent to the targets that take `daily`. Default: 0.'),
  })
  .describe(
    'Notifications to webhooks (docs/console.md): fills, halts, the kill switch, reconciliation mismatches, disabled strategies, a daily summary. Never blocks trading; a failed webhook is logged and counted.',
  );
