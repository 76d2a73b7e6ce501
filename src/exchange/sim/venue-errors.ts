// The simulator's refusals, in the venue's code space (weex-facts.md §4.2): string codes, HTTP 400
// except 403 for 40022 and 429 for "429". Messages and HTTP statuses of the documented codes come
// from the one venue table the client classifies with (../weex/venue-errors.ts), so the simulator and
// the client cannot disagree; the constructors below add the live wording of business rejections.
import { decToString, type Dec } from '../../core/decimal.ts';
import { RATE_LIMIT_CODE, VENUE_ERRORS } from '../weex/venue-errors.ts';

export interface VenueReject {
  readonly code: string;
  readonly msg: string;
}

export function httpStatusOf(code: string): number {
  if (code === RATE_LIMIT_CODE) return 429;
  return VENUE_ERRORS[code]?.httpStatus ?? 400;
}

const r = (code: string, msg: string): VenueReject => ({ code, msg });
/** A documented code with its official message. */
const documented = (code: string): VenueReject => r(code, VENUE_ERRORS[code]?.message ?? code);

export const REJECT = {
  missingKey: documented('40001'),
  missingSign: documented('40002'),
  missingTimestamp: documented('40003'),
  badTimestamp: documented('40005'),
  badKey: documented('40006'),
  badContentType: documented('40007'),
  expired: documented('40008'),
  badSign: documented('40009'),
  missingPassphrase: documented('40011'),
  badPassphrase: documented('40012'),
  tooMany: r(RATE_LIMIT_CODE, 'Too many requests'),
  orderNotFound: documented('50005'),
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
