// Wire shapes of the simulator against the venue's documented samples (test/fixtures/weex-docs).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dec } from '../../../src/core/decimal.ts';
import { ContractTable, contractToWire } from '../../../src/exchange/sim/contracts.ts';
import { RawNumber, toJsonText } from '../../../src/exchange/sim/json-text.ts';
import { MatchingCore } from '../../../src/exchange/sim/matching.ts';
import { fillToWire, historyRowToWire, padDecimals, timeToWire } from '../../../src/exchange/sim/wire.ts';
import { contractFromWire } from '../../../src/exchange/weex/mappers.ts';
import { contractSchema } from '../../../src/exchange/weex/schemas.ts';
import { req, ticker } from './helpers.ts';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(`test/fixtures/weex-docs/${name}`, 'utf8'));
const keysOf = (v: unknown): string[] => Object.keys(v as object).sort();

function sample() {
  const core = new MatchingCore({ seed: 1 });
  core.applyTickers(1, [ticker('cmt_btcusdt', '90755.3', '90755.4')]);
  const r = core.place(2, 'cmt_btcusdt', req('x1', 'open_long', '0.01'));
  if (!r.ok) throw new Error(r.reject.msg);
  return { core, order: core.order(r.order.orderId)!, fill: core.fills()[0]! };
}

describe('wire shapes', () => {
  it('history rows carry exactly the fields of the documented sample, formatted alike', () => {
    const { core, order } = sample();
    const row = historyRowToWire(order, core.contracts);
    const doc = (fixture('history.json') as object[])[0];
    expect(keysOf(row)).toEqual(keysOf(doc));
    expect(row).toMatchObject({
      size: '0.010000',
      filled_qty: '0.010000',
      price: '0.0',
      price_avg: '90755.4',
      order_type: 'ioc',
      contracts: 10000,
      filledQtyContracts: 10000,
    });
    expect(row.fee).toBe('0.72604320');
  });

  it('fills carry exactly the fields of the documented sample', () => {
    const { fill } = sample();
    const doc = (fixture('fills.json') as { list: object[] }).list[0];
    expect(keysOf(fillToWire(fill, true))).toEqual(keysOf(doc));
    expect(toJsonText(fillToWire(fill, true))).toMatch(
      /^\{"tradeId":\d{18},"orderId":\d{18},"symbol":"cmt_btcusdt"/,
    );
    expect(toJsonText(fillToWire(fill, false))).toMatch(/^\{"tradeId":"\d{18}","orderId":"\d{18}",/);
  });

  it('contracts rows carry the documented fields and map back to the same rules', () => {
    const table = new ContractTable({ cmt_solusdt: { sizeStep: '0.1', priceTick: '0.005' } });
    const row = contractToWire('cmt_solusdt', table.rules('cmt_solusdt'));
    expect(keysOf(row)).toEqual(keysOf((fixture('contracts.hackathon-guide.json') as object[])[0]));
    expect(row).toMatchObject({
      size_increment: '1',
      tick_size: '3',
      priceEndStep: 5,
      underlying_index: 'SOL',
    });
    const spec = contractFromWire(contractSchema.parse(row));
    expect(spec.sizeStep.toFixed()).toBe('0.1');
    expect(spec.priceTick.toFixed()).toBe('0.005');
    expect(() => new ContractTable({ x: { sizeStep: '0.25' } })).toThrow(/power of ten/);
    expect(() => new ContractTable({ x: { priceTick: '0.15' } })).toThrow(/priceEndStep/);
  });

  it('market/time like the sample; JSON text with raw numbers', () => {
    expect(timeToWire(1716710918113)).toEqual(fixture('time.json'));
    expect(
      toJsonText({ a: new RawNumber('719220560554361701'), b: [1, 'x', null, undefined], c: undefined }),
    ).toBe('{"a":719220560554361701,"b":[1,"x",null,null]}');
    expect(() => new RawNumber('1e5; drop')).toThrow();
    expect(padDecimals(dec('0.5'), 6)).toBe('0.500000');
    expect(padDecimals(dec('0.0000001'), 6)).toBe('0.0000001');
  });
});
