// The pino root logger. One root per process, created by the composition root (src/cli) and passed
// down; components log through child loggers carrying `component`, `strategy` and `clientOid`.
//
// Output: JSON lines to stderr by default; human-readable (pino-pretty) when stderr is a terminal or
// the config says `log.pretty: true`; or appended to `log.file` (reopened by `reopen()`, which the
// runner calls on SIGHUP, for logrotate).
//
// Credentials never reach the output, by two independent layers:
// 1. redaction paths: credential headers (ACCESS-KEY, ACCESS-SIGN, ACCESS-PASSPHRASE, authorization)
//    and fields named apiKey/secret/passphrase/password/token/credentials, at the top level and
//    nested, are replaced by "[redacted]";
// 2. a last-resort censor on the serialized line (pino's `hooks.streamWrite`): the literal configured
//    key, secret and passphrase are replaced wherever they appear (in a message, an error text, a URL).
import pino from 'pino';
import type { DestinationStream, Logger, LevelWithSilent } from 'pino';
import { prettyFactory } from 'pino-pretty';

export type { Logger };

export const REDACTED = '[redacted]';

const CREDENTIAL_HEADERS = [
  '["ACCESS-KEY"]',
  '["ACCESS-SIGN"]',
  '["ACCESS-PASSPHRASE"]',
  'authorization',
  'cookie',
];
const SECRET_FIELDS = [
  'apiKey',
  'api_key',
  'secret',
  'apiSecret',
  'passphrase',
  'password',
  'token',
  'credentials',
];

function headerPaths(prefix: string): string[] {
  return CREDENTIAL_HEADERS.map((h) => (h.startsWith('[') ? `${prefix}${h}` : `${prefix}.${h}`));
}

/** Every redaction path (pino / fast-redact syntax). Exported for tests and docs. */
export const REDACT_PATHS: readonly string[] = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...SECRET_FIELDS.map((f) => `*.*.${f}`),
  '["ACCESS-KEY"]',
  '["ACCESS-SIGN"]',
  '["ACCESS-PASSPHRASE"]',
  '*["ACCESS-KEY"]',
  '*["ACCESS-SIGN"]',
  '*["ACCESS-PASSPHRASE"]',
  'authorization',
  '*.authorization',
  ...headerPaths('headers'),
  ...headerPaths('*.headers'),
  ...headerPaths('*.*.headers'),
];

/** Shorter values are not censored literally (they would blank out ordinary words and digits). */
const MIN_CENSORED_LENGTH = 4;

/** Replaces every literal occurrence of the secrets (raw and JSON-escaped) in a serialized line. */
export function censorSecrets(line: string, secrets: Iterable<string>): string {
  let out = line;
  for (const s of secrets) {
    if (s.length < MIN_CENSORED_LENGTH) continue;
    const escaped = JSON.stringify(s).slice(1, -1);
    if (out.includes(s)) out = out.split(s).join(REDACTED);
    if (escaped !== s && out.includes(escaped)) out = out.split(escaped).join(REDACTED);
  }
  return out;
}

export interface RootLoggerOptions {
  /** Lowest level written. Default: info. */
  readonly level?: LevelWithSilent;
  /** `auto` (default): pretty only when the output is a terminal. */
  readonly pretty?: boolean | 'auto';
  /** Append to this file instead of stderr. */
  readonly file?: string | undefined;
  /** Literal values never to be written (the configured key, secret and passphrase). */
  readonly secrets?: readonly string[];
  /** Write here instead of stderr or a file (tests, embedding). */
  readonly destination?: DestinationStream;
  /** Whether stderr is a terminal; default `process.stderr.isTTY`. */
  readonly isTty?: boolean;
  /** Fields on every line (e.g. `{ app: 'capibot' }`); default: pid and hostname. */
  readonly base?: Record<string, unknown>;
}

export interface RootLogger {
  readonly logger: Logger;
  /** Adds literal values to the censor (e.g. credentials read after the logger was made). */
  addSecrets(values: readonly string[]): void;
  /** Reopens the log file (after logrotate moved it); a no-op when logging to stderr. */
  reopen(): void;
  /** Writes out anything buffered (call before exiting). */
  flush(): void;
}

interface SonicLike {
  reopen?: (file?: string) => void;
  flushSync?: () => void;
}

export function createRootLogger(opts: RootLoggerOptions = {}): RootLogger {
  const secrets = new Set<string>(opts.secrets ?? []);
  const isTty = opts.isTty ?? process.stderr.isTTY === true;
  const toFile = opts.file !== undefined && opts.destination === undefined;
  const usePretty =
    opts.pretty === true ||
    ((opts.pretty ?? 'auto') === 'auto' && !toFile && opts.destination === undefined && isTty);

  const sink: DestinationStream =
    opts.destination ??
    (toFile && opts.file !== undefined
      ? pino.destination({ dest: opts.file, append: true, mkdir: true, sync: true })
      : pino.destination({ dest: 2, sync: true }));
  // Pretty lines are formatted in-process (synchronously) from the already censored JSON line.
  const stream: DestinationStream = usePretty
    ? prettyStream(sink, isTty && !toFile && opts.destination === undefined)
    : sink;

  const logger = pino(
    {
      level: opts.level ?? 'info',
      redact: { paths: [...REDACT_PATHS], censor: REDACTED },
      timestamp: pino.stdTimeFunctions.isoTime,
      serializers: { err: pino.stdSerializers.err },
      hooks: { streamWrite: (line) => censorSecrets(line, secrets) },
      ...(opts.base !== undefined ? { base: opts.base } : {}),
    },
    stream,
  );

  const sonic = sink as DestinationStream & SonicLike;
  return {
    logger,
    addSecrets: (values) => {
      for (const v of values) secrets.add(v);
    },
    reopen: () => {
      if (toFile) sonic.reopen?.();
    },
    flush: () => {
      sonic.flushSync?.();
    },
  };
}

function prettyStream(sink: DestinationStream, colorize: boolean): DestinationStream {
  const format = prettyFactory({
    colorize,
    translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
  return {
    write: (line: string) => {
      sink.write(format(line));
    },
  };
}

/** A logger that writes nothing (tests, library use). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

/** Field names shared by every component, so one grep follows an order end to end. */
export const LOG_FIELDS = { component: 'component', strategy: 'strategy', clientOid: 'clientOid' } as const;

export function componentLogger(parent: Logger, component: string): Logger {
  return parent.child({ [LOG_FIELDS.component]: component });
}

export function strategyLogger(parent: Logger, strategy: string): Logger {
  return parent.child({ [LOG_FIELDS.strategy]: strategy });
}

export function orderLogger(parent: Logger, clientOid: string): Logger {
  return parent.child({ [LOG_FIELDS.clientOid]: clientOid });
}
