// Deterministic client order ids: `<prefix>-<strategy>-<sequence>`, at most 40 characters of
// [A-Za-z0-9_-] (ARCHITECTURE.md invariant 1). `-` only ever separates the three parts:
// - prefix: [A-Za-z0-9]{1,8}, from the config; marks capibot's own orders at the exchange;
// - strategy: the strategy id when it is a valid config id ([A-Za-z0-9_]{1,16}); any other text is
//   mapped deterministically to 16 characters: the first 8 after replacing other characters by `_`,
//   then `_` and 7 base-36 characters of a 32-bit FNV-1a hash of the original text;
// - sequence: a non-negative safe integer in base 36 (lower case, no leading zeros), ≤ 11 characters.
// Longest id: 8 + 1 + 16 + 1 + 11 = 37 characters.
// `parseClientOid` accepts exactly the ids `formatClientOid` produces, so reconciliation can tell
// capibot's orders (and which strategy placed them) from anything else on the account.
import { ConfigError, InvariantViolation } from '../core/errors.ts';
import { fnv1a32 } from '../core/hash.ts';
import { clientOid, isValidClientOid, type ClientOid } from '../core/ids.ts';

export const CLIENT_OID_PREFIX_PATTERN = /^[A-Za-z0-9]{1,8}$/;
/** The strategy part of a client_oid (config strategy ids match it as they are). */
export const STRATEGY_PART_PATTERN = /^[A-Za-z0-9_]{1,16}$/;
const SEQUENCE_PATTERN = /^(?:0|[1-9a-z][0-9a-z]{0,10})$/;

const STRATEGY_PART_MAX = 16;
const HASH_CHARS = 7;

/** The strategy part of the client_oids of a strategy (the id itself when it is a valid config id). */
export function strategyOidPart(strategy: string): string {
  if (STRATEGY_PART_PATTERN.test(strategy)) return strategy;
  const head = strategy.replace(/[^A-Za-z0-9_]/g, '_').slice(0, STRATEGY_PART_MAX - HASH_CHARS - 1);
  return `${head}_${fnv1a32(strategy).toString(36).padStart(HASH_CHARS, '0')}`;
}

export function formatClientOid(prefix: string, strategy: string, sequence: number): ClientOid {
  if (!CLIENT_OID_PREFIX_PATTERN.test(prefix)) {
    throw new ConfigError(
      `client_oid prefix must match ${CLIENT_OID_PREFIX_PATTERN.source}, got ${JSON.stringify(prefix)}`,
    );
  }
  if (!Number.isSafeInteger(sequence) || sequence < 0) {
    throw new InvariantViolation(`client_oid sequence must be a non-negative safe integer, got ${sequence}`);
  }
  const id = `${prefix}-${strategyOidPart(strategy)}-${sequence.toString(36)}`;
  if (!isValidClientOid(id))
    throw new InvariantViolation(`generated an invalid client_oid ${JSON.stringify(id)}`);
  return clientOid(id);
}

export interface ParsedClientOid {
  /** The strategy part (equal to the strategy id for valid config ids; compare with strategyOidPart). */
  readonly strategy: string;
  readonly sequence: number;
}

/** The parts of one of capibot's client_oids with this prefix, or undefined for anything else. */
export function parseClientOid(s: string, prefix: string): ParsedClientOid | undefined {
  if (!isValidClientOid(s)) return undefined;
  const parts = s.split('-');
  if (parts.length !== 3) return undefined;
  const [p, strategy, seq] = parts;
  if (p !== prefix || strategy === undefined || seq === undefined) return undefined;
  if (!STRATEGY_PART_PATTERN.test(strategy) || !SEQUENCE_PATTERN.test(seq)) return undefined;
  const sequence = parseInt(seq, 36);
  if (!Number.isSafeInteger(sequence)) return undefined;
  return { strategy, sequence };
}
