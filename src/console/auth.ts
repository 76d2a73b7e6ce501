// Who may use the console. Two token kinds, both read ONLY from the environment (the config names the
// variables): the control token (see and act) and the read-only token (see). Every request carries
// one, as `Authorization: Bearer <token>` (scripts, curl) or as the password of HTTP Basic auth (the
// browser asks once and then sends it with every request, the event stream included).
//
// Comparison is constant-time: both sides are hashed to SHA-256 first, so the lengths are equal and
// timingSafeEqual never leaks where the first difference is or how long the token is. Both tokens are
// always compared, so the time does not say which kind matched either.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { ConfigError } from '../core/errors.ts';
import type { Env } from '../config/interpolate.ts';
import type { ConsoleRole } from './types.ts';

export const MIN_TOKEN_LENGTH = 16;

export interface ConsoleTokens {
  readonly control: string;
  readonly read?: string;
  /** The control token was made at start (no variable set, loopback only): say it once. */
  readonly generated: boolean;
}

export interface TokenSettings {
  readonly host: string;
  readonly tokenEnv: string;
  readonly readTokenEnv: string;
}

/** 127.0.0.0/8, ::1 (also as ::ffff:127.x) and `localhost`. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

/**
 * The tokens for a console bound to `s.host`. A non-loopback address without the control token is
 * refused (ConfigError, exit 2): the console would be open to the network. Error messages name the
 * variables, never their values.
 */
export function resolveConsoleTokens(s: TokenSettings, env: Env): ConsoleTokens {
  const control = nonEmpty(env[s.tokenEnv]);
  const read = nonEmpty(env[s.readTokenEnv]);
  for (const [name, value, field] of [
    [s.tokenEnv, control, 'console.tokenEnv'],
    [s.readTokenEnv, read, 'console.readTokenEnv'],
  ] as const) {
    if (value !== undefined && value.length < MIN_TOKEN_LENGTH)
      throw new ConfigError(
        `${name} is shorter than ${MIN_TOKEN_LENGTH} characters: use a long random token`,
        field,
      );
  }
  if (control !== undefined && read !== undefined && control === read)
    throw new ConfigError(`${s.tokenEnv} and ${s.readTokenEnv} hold the same token`, 'console.readTokenEnv');
  if (control === undefined) {
    if (!isLoopback(s.host))
      throw new ConfigError(
        `console.host ${s.host} is not a loopback address, and ${s.tokenEnv} is not set: the console ` +
          `would be open to the network. Set ${s.tokenEnv} (at least ${MIN_TOKEN_LENGTH} random characters, ` +
          'e.g. `openssl rand -base64 32`), or bind to 127.0.0.1 and reach it through a reverse proxy or an SSH tunnel',
        'console.host',
      );
    return {
      control: randomBytes(24).toString('base64url'),
      ...(read !== undefined ? { read } : {}),
      generated: true,
    };
  }
  return { control, ...(read !== undefined ? { read } : {}), generated: false };
}

function nonEmpty(v: string | undefined): string | undefined {
  return v !== undefined && v !== '' ? v : undefined;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

export class TokenCheck {
  readonly #control: Buffer;
  readonly #read: Buffer | undefined;

  constructor(tokens: Pick<ConsoleTokens, 'control' | 'read'>) {
    this.#control = digest(tokens.control);
    this.#read = tokens.read !== undefined ? digest(tokens.read) : undefined;
  }

  /** The role the token gives, or undefined. */
  roleOf(presented: string): ConsoleRole | undefined {
    const d = digest(presented);
    const isControl = timingSafeEqual(d, this.#control);
    // Compared even when control matched (and against itself when unset): the same work either way.
    const isRead = timingSafeEqual(d, this.#read ?? this.#control) && this.#read !== undefined;
    return isControl ? 'control' : isRead ? 'read' : undefined;
  }
}

/** The token a request presents (Bearer, or the password of Basic auth), if any. */
export function presentedToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (h === undefined || h.length > 4096) return undefined;
  const m = /^(Bearer|Basic)\s+(\S+)\s*$/i.exec(h);
  if (m === null || m[2] === undefined) return undefined;
  if (m[1]?.toLowerCase() === 'bearer') return m[2];
  const decoded = Buffer.from(m[2], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? decoded.slice(colon + 1) : undefined;
}
