// Lossless JSON parsing for exchange replies. Some endpoints send 18-digit ids as JSON numbers
// (fills tradeId/orderId); JSON.parse would silently round them. Integers beyond the safe range are
// kept as their exact digit string; every other number becomes a JS number (money on the wire is
// always a string, so no decimal passes through here as a float).
import { parse, isSafeNumber } from 'lossless-json';

function parseNumber(text: string): number | string {
  return isSafeNumber(text) ? Number(text) : text;
}

/** Parses JSON text; unsafe integers stay exact as strings. Throws SyntaxError on bad JSON. */
export function parseLosslessJson(text: string): unknown {
  return parse(text, null, parseNumber);
}
