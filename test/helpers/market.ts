// Small builders for tickers and contract specs used across engine and strategy tests.
import { dec } from '../../src/core/decimal.ts';
import { symbolId, type SymbolId } from '../../src/core/ids.ts';
import type { ContractSpec, Ticker } from '../../src/core/market.ts';

export const BTC = symbolId('cmt_btcusdt');
export const ETH = symbolId('cmt_ethusdt');

export function makeTicker(symbol: SymbolId, last: string, timestamp = 0): Ticker {
  const l = dec(last);
  const bid = l.minus('0.1');
  const ask = l.plus('0.1');
  return {
    symbol,
    timestamp,
    price: Number(last),
    bid: Number(bid.toFixed()),
    ask: Number(ask.toFixed()),
    last: l,
    bestBid: bid,
    bestAsk: ask,
    wire: {
      symbol,
      last,
      best_bid: bid.toFixed(),
      best_ask: ask.toFixed(),
      high_24h: last,
      low_24h: last,
      volume_24h: '0',
      timestamp: String(timestamp),
      priceChangePercent: '0',
      base_volume: '0',
    },
  };
}

export function makeSpec(symbol: SymbolId, priceTick = '0.1', sizeStep = '0.001'): ContractSpec {
  return {
    symbol,
    sizeStep: dec(sizeStep),
    priceTick: dec(priceTick),
    minSize: dec(sizeStep),
    maxSize: dec('1000'),
    makerFeeRate: dec('0.0002'),
    takerFeeRate: dec('0.0006'),
  };
}

export const SPECS: ReadonlyMap<SymbolId, ContractSpec> = new Map([
  [BTC, makeSpec(BTC)],
  [ETH, makeSpec(ETH, '0.01', '0.01')],
]);
