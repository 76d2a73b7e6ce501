// The one table of documented capi/v2 error codes (weex-facts.md §4.2), and how capibot classifies
// them. The transport turns every error envelope into an ExchangeError through `classifyVenueCode`;
// the simulator may use the same table to answer with the documented messages and HTTP statuses.
import type { RetrySemantic, VenueErrorCategory } from '../../core/errors.ts';

export interface VenueErrorInfo {
  readonly category: Exclude<VenueErrorCategory, 'unknown'>;
  /** The HTTP status the exchange documents for this code. */
  readonly httpStatus: number;
  /** The official message (English). */
  readonly message: string;
  /**
   * `retryable` only where the exchange definitively refused the request before acting on it and a
   * fresh attempt can succeed (40008: re-sync the server clock, then resend with a new timestamp).
   */
  readonly retry: RetrySemantic;
}

const auth = (message: string, retry: RetrySemantic = 'never'): VenueErrorInfo => ({
  category: 'auth',
  httpStatus: 400,
  message,
  retry,
});
const permission = (message: string, httpStatus = 400): VenueErrorInfo => ({
  category: 'permission',
  httpStatus,
  message,
  retry: 'never',
});
const parameter = (message: string): VenueErrorInfo => ({
  category: 'parameter',
  httpStatus: 400,
  message,
  retry: 'never',
});
const business = (message: string): VenueErrorInfo => ({
  category: 'business',
  httpStatus: 400,
  message,
  retry: 'never',
});

/** Documented codes 40001–50007 plus the ones seen live (40753, 40021) and in S5 (40912, 40913). */
export const VENUE_ERRORS: Readonly<Record<string, VenueErrorInfo>> = {
  '40001': auth('Header "ACCESS_KEY" is required'),
  '40002': auth('Header "ACCESS_SIGN" is required'),
  '40003': auth('Header "ACCESS_TIMESTAMP" is required'),
  '40005': auth('Invalid ACCESS_TIMESTAMP'),
  '40006': auth('Invalid ACCESS_KEY'),
  '40007': parameter('Invalid Content_Type, use "application/json" format'),
  '40008': auth('Request timestamp expired', 'retryable'),
  '40009': auth('API verification failed'),
  '40011': auth('Header "ACCESS_PASSPHRASE" is required'),
  '40012': auth('Incorrect API key/Passphrase'),
  '40013': permission('Account frozen'),
  '40014': permission('Invalid permissions'),
  // Documented as "System error", used live as the generic business-rule rejection (step size, TP/SL).
  '40015': business('System error'),
  '40016': permission('user must bind a mobile phone or Google authenticator'),
  '40017': parameter('Parameter validation failed'),
  '40018': permission('Invalid IP request'),
  '40019': parameter('Parameter cannot be empty'),
  '40020': parameter('Parameter is invalid'),
  '40021': permission('check openapi permission is error'),
  '40022': permission('Insufficient permissions for this operation', 403),
  '40753': permission('API permission disabled'),
  '40912': parameter('Single cancellation cannot exceed 50'),
  '40913': parameter('Either orderId or clientId must be provided'),
  '50003': permission('Not have permission to trade this pair.'),
  '50004': permission('Not have permission to access this API.'),
  '50005': { category: 'not_found', httpStatus: 400, message: 'Order does not exist', retry: 'never' },
  '50007': business('Leverage cannot exceed the limit'),
};

/** The rate-limit code; it never becomes an ExchangeError (the transport raises RateLimitedError). */
export const RATE_LIMIT_CODE = '429';
/** Request timestamp expired: re-sync the server clock and resend once. */
export const TIMESTAMP_EXPIRED_CODE = '40008';
/** Order does not exist (also what a cancel of an already filled/canceled order gets). */
export const ORDER_NOT_FOUND_CODE = '50005';

export interface VenueClassification {
  readonly category: VenueErrorCategory;
  readonly retry: RetrySemantic;
}

/** Classifies a venue code; codes outside the table are `unknown` and never retried. */
export function classifyVenueCode(code: string): VenueClassification {
  const info = Object.hasOwn(VENUE_ERRORS, code) ? VENUE_ERRORS[code] : undefined;
  return info ? { category: info.category, retry: info.retry } : { category: 'unknown', retry: 'never' };
}

/** Category for an error reply that carries no venue code (CDN pages, Spring 404 bodies). */
export function categoryForHttpStatus(status: number): VenueErrorCategory {
  if (status === 401) return 'auth';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 400 || status === 405 || status === 415 || status === 422) return 'parameter';
  return 'unknown';
}
