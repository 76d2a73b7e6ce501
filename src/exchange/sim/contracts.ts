// The simulator's contracts table: trading rules per symbol (size step, price tick, min/max size,
// fee rates) and the `market/contracts` wire rows built from it. Defaults follow weex-facts.md §6:
// BTC step 0.0001 / tick 0.1, ETH step 0.001 / tick 0.01, maker 0.0002 / taker 0.0008. Symbols
// that appear only in the market data use `defaults`.
import { z } from 'zod';
import { dec, decToString, ONE, type Dec } from '../../core/decimal.ts';
import { symbolId } from '../../core/ids.ts';
import type { ContractSpec } from '../../core/market.ts';
import { wireDecimal } from '../weex/schemas.ts';

/** Rules of one symbol without its name (for defaults and overrides). */
export type ContractRules = Omit<ContractSpec, 'symbol'>;

export const DEFAULT_MAKER_FEE_RATE = '0.0002';
export const DEFAULT_TAKER_FEE_RATE = '0.0008';

/** Rules for symbols the table does not name. Size step is a power of ten; tick is k × 10^-n. */
export const DEFAULT_RULES: ContractRules = {
  sizeStep: dec('0.001'),
  priceTick: dec('0.0001'),
  minSize: dec('0.001'),
  maxSize: dec('1000000'),
  makerFeeRate: dec(DEFAULT_MAKER_FEE_RATE),
  takerFeeRate: dec(DEFAULT_TAKER_FEE_RATE),
};

export const DEFAULT_CONTRACTS: Readonly<Record<string, ContractRules>> = {
  cmt_btcusdt: {
    ...DEFAULT_RULES,
    sizeStep: dec('0.0001'),
    priceTick: dec('0.1'),
    minSize: dec('0.0001'),
    maxSize: dec('1200'),
  },
  cmt_ethusdt: {
    ...DEFAULT_RULES,
    sizeStep: dec('0.001'),
    priceTick: dec('0.01'),
    minSize: dec('0.001'),
    maxSize: dec('10000'),
  },
};

const positive = wireDecimal.refine((s) => dec(s).gt(0), { message: 'must be greater than 0' });
const rate = wireDecimal.refine((s) => dec(s).gte(0) && dec(s).lt(1), { message: 'must be in [0, 1)' });

/** Overrides as written in a config file: decimal strings, every field optional. */
export const contractOverrideSchema = z
  .object({
    sizeStep: positive.optional(),
    priceTick: positive.optional(),
    minSize: positive.optional(),
    maxSize: positive.optional(),
    makerFeeRate: rate.optional(),
    takerFeeRate: rate.optional(),
  })
  .strict();
export type ContractOverride = z.infer<typeof contractOverrideSchema>;

function applyOverride(base: ContractRules, o: ContractOverride | undefined): ContractRules {
  if (!o) return base;
  return {
    sizeStep: o.sizeStep !== undefined ? dec(o.sizeStep) : base.sizeStep,
    priceTick: o.priceTick !== undefined ? dec(o.priceTick) : base.priceTick,
    minSize: o.minSize !== undefined ? dec(o.minSize) : base.minSize,
    maxSize: o.maxSize !== undefined ? dec(o.maxSize) : base.maxSize,
    makerFeeRate: o.makerFeeRate !== undefined ? dec(o.makerFeeRate) : base.makerFeeRate,
    takerFeeRate: o.takerFeeRate !== undefined ? dec(o.takerFeeRate) : base.takerFeeRate,
  };
}

/** Number of decimal places of a decimal (0.0001 → 4, 0.5 → 1, 10 → 0). */
export function decimalPlaces(d: Dec): number {
  const text = decToString(d.abs());
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

function assertRepresentable(symbol: string, r: ContractRules): void {
  const n = decimalPlaces(r.sizeStep);
  if (!r.sizeStep.eq(ONE.div(dec(10).pow(n))) || r.sizeStep.gt(1)) {
    throw new RangeError(
      `${symbol}: sizeStep ${decToString(r.sizeStep)} must be a power of ten ≤ 1 (size_increment)`,
    );
  }
  const endStep = r.priceTick.times(dec(10).pow(decimalPlaces(r.priceTick)));
  if (!endStep.eq(endStep.round(0)) || endStep.gt(9)) {
    throw new RangeError(
      `${symbol}: priceTick ${decToString(r.priceTick)} must be k × 10^-n with k in 1..9 (priceEndStep)`,
    );
  }
  if (r.minSize.gt(r.maxSize)) throw new RangeError(`${symbol}: minSize is greater than maxSize`);
}

/** Rules per symbol; symbols not named get the defaults (once they are known from market data). */
export class ContractTable {
  readonly #named: Map<string, ContractRules>;
  readonly #defaults: ContractRules;

  constructor(
    overrides: Readonly<Record<string, ContractOverride>> = {},
    defaults: ContractOverride | undefined = undefined,
  ) {
    this.#defaults = applyOverride(DEFAULT_RULES, defaults);
    assertRepresentable('defaults', this.#defaults);
    this.#named = new Map(Object.entries(DEFAULT_CONTRACTS));
    for (const [symbol, o] of Object.entries(overrides)) {
      const rules = applyOverride(this.#named.get(symbol) ?? this.#defaults, o);
      assertRepresentable(symbol, rules);
      this.#named.set(symbol, rules);
    }
  }

  /** True when the table names the symbol (not only defaults). */
  names(symbol: string): boolean {
    return this.#named.has(symbol);
  }

  namedSymbols(): readonly string[] {
    return [...this.#named.keys()].sort();
  }

  rules(symbol: string): ContractRules {
    return this.#named.get(symbol) ?? this.#defaults;
  }

  spec(symbol: string): ContractSpec {
    return { symbol: symbolId(symbol), ...this.rules(symbol) };
  }
}

/** `market/contracts` row (weex-facts.md §6 field list), with the table's rules. */
export function contractToWire(symbol: string, r: ContractRules): Record<string, unknown> {
  const tickPlaces = decimalPlaces(r.priceTick);
  const base = symbol.replace(/^cmt_/, '').replace(/usdt$/, '').toUpperCase();
  return {
    symbol,
    underlying_index: base,
    quote_currency: 'USDT',
    coin: 'USDT',
    contract_val: decToString(r.sizeStep),
    delivery: ['00:00:00', '08:00:00', '16:00:00'],
    size_increment: String(decimalPlaces(r.sizeStep)),
    tick_size: String(tickPlaces),
    forwardContractFlag: true,
    priceEndStep: Number(decToString(r.priceTick.times(dec(10).pow(tickPlaces)))),
    minLeverage: 1,
    maxLeverage: 400,
    buyLimitPriceRatio: '0.01',
    sellLimitPriceRatio: '0.01',
    makerFeeRate: decToString(r.makerFeeRate),
    takerFeeRate: decToString(r.takerFeeRate),
    minOrderSize: decToString(r.minSize),
    maxOrderSize: decToString(r.maxSize),
    maxPositionSize: '1000000',
    marketOpenLimitSize: '100',
  };
}
