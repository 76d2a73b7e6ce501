// Recognising capibot's own client_oids (`<prefix>-<strategy part>-<base-36 sequence>`, generated and
// parsed by src/execution/client-oid.ts). Reconciliation needs only "is it ours, and whose": an order
// at the exchange with our prefix but missing locally is adopted; anything else is foreign.
import type { StrategyId } from '../core/ids.ts';
import { strategyId } from '../core/ids.ts';
import { parseClientOid, strategyOidPart } from '../execution/client-oid.ts';

export interface OwnClientOid {
  readonly strategy: StrategyId;
  readonly sequence: number;
}

/**
 * The strategy and sequence of one of our client_oids, or undefined for a foreign one. The strategy
 * part is mapped back to one of `strategies` when one produces it (ids that are not valid oid parts
 * are hashed into it); otherwise the part itself names the strategy.
 */
export function parseOwnClientOid(
  oid: string,
  prefix: string,
  strategies: readonly StrategyId[] = [],
): OwnClientOid | undefined {
  const parsed = parseClientOid(oid, prefix);
  if (parsed === undefined) return undefined;
  const known = strategies.find((s) => strategyOidPart(s) === parsed.strategy);
  return { strategy: known ?? strategyId(parsed.strategy), sequence: parsed.sequence };
}
