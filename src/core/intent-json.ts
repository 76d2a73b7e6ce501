// The intent journal's text: what a strategy asked for, decimals as plain decimal strings (never
// exponent notation), so the journal reads the same in every run. Made by the store that keeps the
// journal (store/sqlite-store.ts) as it writes a line: a backtest's store only counts the lines, and
// then no intent is serialised at all.
import { decToString } from './decimal.ts';
import type { Intent } from './intents.ts';

/** The journal's text of an intent: decimals as plain decimal strings (never exponent notation). */
export function intentJson(intent: Intent): string {
  switch (intent.kind) {
    case 'place':
      // Object.assign keeps the intent's key order, as a spread would (and is faster: ../core/copies.ts).
      return JSON.stringify(
        Object.assign({}, intent, {
          size: decToString(intent.size),
          ...(intent.price !== undefined ? { price: decToString(intent.price) } : {}),
          ...(intent.triggerPrice !== undefined ? { triggerPrice: decToString(intent.triggerPrice) } : {}),
          ...(intent.attach !== undefined
            ? {
                attach: {
                  ...(intent.attach.stopLoss !== undefined
                    ? { stopLoss: decToString(intent.attach.stopLoss) }
                    : {}),
                  ...(intent.attach.takeProfit !== undefined
                    ? { takeProfit: decToString(intent.attach.takeProfit) }
                    : {}),
                },
              }
            : {}),
        }),
      );
    case 'cancel':
    case 'cancelAll':
      return JSON.stringify(intent);
  }
}
