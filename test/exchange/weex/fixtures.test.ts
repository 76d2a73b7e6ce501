// Every official documentation sample and every observed variant parses through the wire schemas
// (with the lossless parser), and maps into core types.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseLosslessJson } from '../../../src/exchange/weex/lossless-json.ts';
import {
  contractFromWire,
  fillFromWire,
  orderReportFromWire,
  planReportFromWire,
  tickerFromWire,
  wireTickerFromParsed,
} from '../../../src/exchange/weex/mappers.ts';
import { interpretReply } from '../../../src/exchange/weex/reply.ts';
import {
  batchOrdersReplySchema,
  cancelOrderReplySchema,
  contractsSchema,
  errorEnvelopeSchema,
  fillsReplySchema,
  historyRowSchema,
  historySchema,
  placeOrderReplySchema,
  planHistoryReplySchema,
  planRowSchema,
  tickerSchema,
  tickersSchema,
  timeSchema,
} from '../../../src/exchange/weex/schemas.ts';

const DIR = join(import.meta.dirname, '../../fixtures/weex-docs');
const load = (name: string): unknown => parseLosslessJson(readFileSync(join(DIR, name), 'utf8'));

const OFFICIAL: Readonly<Record<string, z.ZodType>> = {
  'placeOrder.json': placeOrderReplySchema,
  'batchOrders.json': batchOrdersReplySchema,
  'cancel_order.json': cancelOrderReplySchema,
  'cancel_order.older-variant.json': cancelOrderReplySchema,
  'history.json': historySchema,
  'current.json': historySchema,
  'detail.json': historyRowSchema,
  'fills.json': fillsReplySchema,
  'historyPlan.json': planHistoryReplySchema,
  'currentPlan.json': z.array(planRowSchema),
  'tickers.json': tickersSchema,
  'ticker.older-variant.json': tickerSchema,
  'contracts.json': contractsSchema,
  'contracts.hackathon-guide.json': contractsSchema,
  'time.json': timeSchema,
  'error-40020.json': errorEnvelopeSchema,
};

const OBSERVED: Readonly<Record<string, z.ZodType>> = {
  'fills.bare-array.json': fillsReplySchema,
  'fills.under-data.json': fillsReplySchema,
  'fills.18-digit-ids.json': fillsReplySchema,
  'historyPlan.word-status.json': planHistoryReplySchema,
  'history.numeric-createTime.json': historySchema,
  'tickers.no-mark-index.json': tickersSchema,
  'placeOrder.echo-client-oid.json': placeOrderReplySchema,
  'error-40015.live-message.json': errorEnvelopeSchema,
};

describe('weex fixtures', () => {
  it('covers every fixture file in the directory', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
    const known = new Set([
      ...Object.keys(OFFICIAL),
      ...Object.keys(OBSERVED),
      'error-404.spring.json',
      'success-wrapper.json',
    ]);
    expect(files.filter((f) => !known.has(f))).toEqual([]);
  });

  it.each(Object.entries(OFFICIAL))('official sample %s parses', (file, schema) => {
    const r = schema.safeParse(load(file));
    expect(r.error?.issues ?? []).toEqual([]);
  });

  it.each(Object.entries(OBSERVED))('observed variant %s parses', (file, schema) => {
    const r = schema.safeParse(load(file));
    expect(r.error?.issues ?? []).toEqual([]);
  });

  it('fills in all three shapes give the same rows', () => {
    const bare = fillsReplySchema.parse(load('fills.bare-array.json'));
    const data = fillsReplySchema.parse(load('fills.under-data.json'));
    expect(bare.list.map(fillFromWire)[0]?.tradeId).toBe('719220560554361777');
    expect(data.list.map(fillFromWire)[0]?.createdTime).toBe(1771475543911);
    expect(bare.nextFlag).toBe(false);
    const doc = fillsReplySchema.parse(load('fills.json'));
    expect(doc.list[0]?.tradeId).toBe('0');
    expect(doc.totals).toBe(0);
  });

  it('keeps every digit of 18-19 digit ids sent as JSON numbers', () => {
    const page = fillsReplySchema.parse(load('fills.18-digit-ids.json'));
    expect(page.list.map((f) => [f.tradeId, f.orderId])).toEqual([
      ['719220560554361777', '719220560554361701'],
      ['9007199254740993123', '1000000000000000001'],
    ]);
    const rows = historySchema.parse(load('history.numeric-createTime.json'));
    expect(rows[0]?.order_id).toBe('719220560554361701');
    expect(rows[0]?.createTime).toBe(1771475543805);
  });

  it('maps plan statuses given as numbers or upper-case words', () => {
    const doc = planHistoryReplySchema.parse(load('historyPlan.json'));
    const words = planHistoryReplySchema.parse(load('historyPlan.word-status.json'));
    expect(doc.list.map(planReportFromWire)[0]?.status).toBe('partially_filled');
    const w = words.list.map(planReportFromWire)[0];
    expect(w?.status).toBe('untriggered');
    expect(w?.type).toBe('CLOSE_LONG');
    expect(w?.clientOid).toBeUndefined();
  });

  it('maps tickers with and without mark/index prices', () => {
    const withMark = tickersSchema
      .parse(load('tickers.json'))
      .map((t) => tickerFromWire(wireTickerFromParsed(t)));
    const without = tickersSchema
      .parse(load('tickers.no-mark-index.json'))
      .map((t) => tickerFromWire(wireTickerFromParsed(t)));
    expect(withMark[0]?.markPrice?.toFixed()).toBe('90755.2');
    // Absent on the wire: no exact mark and no number either (a TickerView's fields are getters).
    expect(without[0]?.markPrice).toBeUndefined();
    expect(without[0]?.mark).toBeUndefined();
    expect(withMark[0]?.mark).toBe(90755.2);
    expect(without[0]?.wire).not.toHaveProperty('markPrice');
    expect(without[0]?.bestBid.toFixed()).toBe('69085.7');
  });

  it('maps history rows and contracts into core types', () => {
    const rows = historySchema.parse(load('history.json')).map(orderReportFromWire);
    expect(rows[0]?.status).toBe('filled');
    expect(rows[0]?.clientOid).toBe('1478527825782587');
    const specs = contractsSchema.parse(load('contracts.hackathon-guide.json')).map(contractFromWire);
    expect(specs[0]?.sizeStep.toFixed()).toBe('0.0001');
    expect(specs[0]?.priceTick.toFixed()).toBe('0.1');
  });

  it('the Bitget-style success wrapper is unwrapped to its data', () => {
    const text = readFileSync(join(DIR, 'success-wrapper.json'), 'utf8');
    const payload = interpretReply(
      'tickers',
      { status: 200, contentType: 'application/json', retryAfter: undefined, text },
      { defaultRetryAfterMs: 1000 },
    );
    expect(tickersSchema.parse(payload)[0]?.symbol).toBe('cmt_btcusdt');
  });
});
