// One-line texts of intents and orders, for readable test expectations and failure messages:
//   place open_long 0.0031 @ 63980.8 postOnly #grid:e-1
//   place close_short 0.007 market #ema:close
//   cancel cb-test-4
//   cancelAll cmt_btcusdt
import { decToString } from '../../core/decimal.ts';
import type { Intent } from '../../core/intents.ts';
import type { Order } from '../../core/orders.ts';

function priced(
  side: string,
  size: string,
  price: string | undefined,
  orderType: string,
  tag: string | undefined,
): string {
  const at = price !== undefined ? `@ ${price}` : 'market';
  const type = orderType === 'normal' ? '' : ` ${orderType}`;
  return `${side} ${size} ${at}${type}${tag !== undefined ? ` #${tag}` : ''}`;
}

export function describeIntent(i: Intent): string {
  switch (i.kind) {
    case 'place':
      return `place ${priced(i.side, decToString(i.size), i.price !== undefined ? decToString(i.price) : undefined, i.orderType, i.tag)}`;
    case 'cancel':
      return `cancel ${i.clientOid ?? `order ${i.orderId ?? '?'}`}`;
    case 'cancelAll':
      return `cancelAll${i.symbol !== undefined ? ` ${i.symbol}` : ''}`;
  }
}

/** `open_long 0.0031 @ 63980.8 postOnly #grid:e-1 → filled 0.0031` */
export function describeOrder(o: Order): string {
  const head = priced(
    o.side,
    decToString(o.size),
    o.price !== undefined ? decToString(o.price) : undefined,
    o.orderType,
    o.tag,
  );
  const filled = o.filledQty.gt(0) ? ` ${decToString(o.filledQty)}` : '';
  return `${head} → ${o.status}${filled}`;
}
