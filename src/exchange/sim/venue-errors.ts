// The simulator's refusals, in the venue's code space (weex-facts.md §4.2): string codes, HTTP 400
// except 403 for 40022 and 429 for "429". One constructor per situation keeps messages uniform.
import { decToString, type Dec } from '../../core/decimal.ts';

export interface VenueReject {
  readonly code: string;
  readonly msg: string;
}

export function httpStatusOf(code: string): number {
  if (code === '429') return 429;
  if (code === '40022') return 403;
  return 400;
}

const r = (code: string, msg: string): VenueReject => ({ code, msg });

export const REJECT = {
  missingKey: r('40001', 'Header "ACCESS_KEY" is required'),
  missingSign: r('40002', 'Header "ACCESS_SIGN" is required'),
  missingTimestamp: r('40003', 'Header "ACCESS_TIMESTAMP" is required'),
  badTimestamp: r('40005', 'Invalid ACCESS_TIMESTAMP'),
  badKey: r('40006', 'Invalid ACCESS_KEY'),
  badContentType: r('40007', 'Invalid Content_Type, use "application/json" format'),
  expired: r('40008', 'Request timestamp expired'),
  badSign: r('40009', 'API verification failed'),
  missingPassphrase: r('40011', 'Header "ACCESS_PASSPHRASE" is required'),
  badPassphrase: r('40012', 'Incorrect API key/Passphrase'),
  tooMany: r('429', 'Too many requests'),
  orderNotFound: r('50005', 'Order does not exist'),
  validation: (detail?: string) =>
    r('40017', detail ? `Parameter validation failed: ${detail}` : 'Parameter validation failed'),
  empty: (name: string) => r('40019', `Parameter ${name} cannot be empty`),
  invalid: (name: string) => r('40020', `Parameter ${name} is invalid`),
  /** The live stepSize message, verbatim apart from the figures. */
  sizeStep: (step: Dec, size: string) =>
    r(
      '40015',
      `INVALID_ARGUMENT: The order size must be greater than 0 and matches the stepSize '${decToString(step)}' requirement. Current size is '${size}'`,
    ),
  minSize: (min: Dec, size: string) =>
    r(
      '40015',
      `INVALID_ARGUMENT: The order size must be greater than or equal to the minOrderSize '${decToString(min)}'. Current size is '${size}'`,
    ),
  maxSize: (max: Dec, size: string) =>
    r(
      '40015',
      `INVALID_ARGUMENT: The order size must be less than or equal to the maxOrderSize '${decToString(max)}'. Current size is '${size}'`,
    ),
  priceTick: (tick: Dec, price: string) =>
    r(
      '40015',
      `INVALID_ARGUMENT: The order price must be greater than 0 and matches the tickSize '${decToString(tick)}' requirement. Current price is '${price}'`,
    ),
  duplicateClientOid: (oid: string) =>
    r('40015', `INVALID_ARGUMENT: The client_oid '${oid}' is already used by another order of this account`),
  closeExceedsPosition: (leg: 'long' | 'short', size: string, closable: Dec) =>
    r(
      '40015',
      `INVALID_ARGUMENT: The close order size '${size}' exceeds the closable ${leg} position size '${decToString(closable)}' (position minus open close orders)`,
    ),
  presetTp: (wording: string, bound: Dec, tp: string) =>
    r(
      '40015',
      `INVALID_ARGUMENT: The ${wording} order take profit param triggerPrice must be ${wording.startsWith('buy') ? 'greater' : 'less'} than price ${decToString(bound)}. Current order open tp param trigger price is ${tp}`,
    ),
  presetSl: (wording: string, bound: Dec, sl: string) =>
    r(
      '40015',
      `INVALID_ARGUMENT: The ${wording} order stop loss param triggerPrice must be ${wording.startsWith('buy') ? 'less' : 'greater'} than price ${decToString(bound)}. Current order open sl param trigger price is ${sl}`,
    ),
} as const;
