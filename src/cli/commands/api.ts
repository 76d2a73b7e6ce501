// `capibot api …`: exactly one request to the contract API per call, the validated reply as JSON on
// stdout (ids as strings). Errors: one line on stderr with the error code (and the exchange code for
// an exchange error), exit 1; bad usage or missing credentials for a signed call, exit 2.
// The definitions of the calls (their --help) are here; the client, the schemas and the orders-file
// reader (./api-run.ts) are loaded only when a call runs (test/cli/compiled.test.ts).
import { InvalidArgumentError, type Command } from 'commander';
import { BadInputError } from '../../core/errors.ts';
import { clientOid, orderId, symbolId } from '../../core/ids.ts';
import type { WeexClient } from '../../exchange/weex/client.ts';
import { DEFAULT_BASE_URL, DEFAULT_TIMEOUTS } from '../../exchange/weex/defaults.ts';
import type { CliContext, RegisterCommand } from '../command.ts';

export interface CommonOptions {
  readonly baseUrl: string;
  readonly timeoutMs: number;
}

function parseNonNegativeInt(value: string): number {
  if (!/^\d{1,16}$/.test(value)) throw new InvalidArgumentError('expected a non-negative integer');
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('integer too large');
  return n;
}

function parsePositiveInt(value: string): number {
  const n = parseNonNegativeInt(value);
  if (n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

function parseDelegateType(value: string): 1 | 2 | 3 | 4 {
  switch (value) {
    case '1':
      return 1;
    case '2':
      return 2;
    case '3':
      return 3;
    case '4':
      return 4;
    default:
      throw new InvalidArgumentError(
        'expected 1 (open long), 2 (open short), 3 (close long) or 4 (close short)',
      );
  }
}

const SIDE_CODES: Readonly<Record<string, '1' | '2' | '3' | '4'>> = {
  open_long: '1',
  open_short: '2',
  close_long: '3',
  close_short: '4',
  '1': '1',
  '2': '2',
  '3': '3',
  '4': '4',
};

function parseSide(value: string): '1' | '2' | '3' | '4' {
  const code = SIDE_CODES[value.toLowerCase()];
  if (code === undefined)
    throw new InvalidArgumentError('expected open_long, open_short, close_long, close_short (or 1-4)');
  return code;
}

function parseMarginMode(value: string): '1' | '3' {
  if (value === '1' || value === '3') return value;
  throw new InvalidArgumentError('expected 1 (cross) or 3 (isolated)');
}

/** Adds --base-url, --timeout-ms and --json to a subcommand. */
function withCommonOptions(cmd: Command): Command {
  const envBase = process.env['CAPIBOT_BASE_URL'];
  return cmd
    .option(
      '--base-url <url>',
      'API origin (scheme://host[:port]); $CAPIBOT_BASE_URL overrides the default',
      envBase !== undefined && envBase !== '' ? envBase : DEFAULT_BASE_URL,
    )
    .option(
      '--timeout-ms <n>',
      'connect, headers and body timeout in milliseconds',
      parsePositiveInt,
      DEFAULT_TIMEOUTS.headersMs,
    )
    .option('--json', 'output JSON (implied: the output is always JSON)');
}

/** One request through a client made for it: ./api-run.ts, loaded only when a call runs. */
async function runOnce(
  ctx: CliContext,
  opts: CommonOptions,
  signed: boolean,
  f: (c: WeexClient) => Promise<unknown>,
): Promise<void> {
  const run = await import('./api-run.ts');
  await run.runOnce(ctx, opts, signed, f);
}

export const registerApi: RegisterCommand = (program, ctx) => {
  const api = program
    .command('api')
    .description(
      'one request to the contract API /capi/v2, reply as JSON on stdout (ids as strings); signed calls read ' +
        'CAPIBOT_API_KEY, CAPIBOT_API_SECRET and CAPIBOT_API_PASSPHRASE',
    );

  withCommonOptions(
    api.command('tickers').description('GET /capi/v2/market/tickers: every symbol (public, unsigned)'),
  ).action(async (opts: CommonOptions) => {
    await runOnce(ctx, opts, false, (c) => c.rawTickers());
  });

  withCommonOptions(
    api
      .command('fills')
      .description('GET /capi/v2/order/fills: executed trades (signed)')
      .option('--symbol <symbol>', 'trading pair, e.g. cmt_btcusdt (default: all)')
      .option('--order-id <id>', 'only the fills of this order')
      .option('--start-time <ms>', 'start, epoch ms', parseNonNegativeInt)
      .option('--end-time <ms>', 'end, epoch ms', parseNonNegativeInt)
      .option('--limit <n>', 'rows, 1-100 (default: the exchange default, 100)', parsePositiveInt),
  ).action(
    async (
      opts: CommonOptions & {
        symbol?: string;
        orderId?: string;
        startTime?: number;
        endTime?: number;
        limit?: number;
      },
    ) => {
      await runOnce(ctx, opts, true, (c) =>
        c.rawFills({
          ...(opts.symbol !== undefined ? { symbol: symbolId(opts.symbol) } : {}),
          ...(opts.orderId !== undefined ? { orderId: orderId(opts.orderId) } : {}),
          ...(opts.startTime !== undefined ? { startTime: opts.startTime } : {}),
          ...(opts.endTime !== undefined ? { endTime: opts.endTime } : {}),
          ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
        }),
      );
    },
  );

  withCommonOptions(
    api
      .command('history')
      .description('GET /capi/v2/order/history: past orders (signed)')
      .option('--symbol <symbol>', 'trading pair (default: all)')
      .option('--page-size <n>', 'rows, 1-100 (default: the exchange default)', parsePositiveInt)
      .option(
        '--create-date <n>',
        'days 0-90, or a 13-digit epoch-ms lower bound within 90 days',
        parseNonNegativeInt,
      ),
  ).action(async (opts: CommonOptions & { symbol?: string; pageSize?: number; createDate?: number }) => {
    await runOnce(ctx, opts, true, (c) =>
      c.rawHistory({
        ...(opts.symbol !== undefined ? { symbol: symbolId(opts.symbol) } : {}),
        ...(opts.pageSize !== undefined ? { pageSize: opts.pageSize } : {}),
        ...(opts.createDate !== undefined ? { createDate: opts.createDate } : {}),
      }),
    );
  });

  withCommonOptions(
    api
      .command('plan-history')
      .alias('history-plan')
      .description(
        'GET /capi/v2/order/historyPlan: plan (trigger) orders no longer waiting (triggered, canceled), ' +
          'created in [--start-time, --end-time], newest first (signed)',
      )
      .requiredOption('--symbol <symbol>', 'trading pair, e.g. cmt_btcusdt')
      .requiredOption('--start-time <ms>', 'start, epoch ms', parseNonNegativeInt)
      .requiredOption('--end-time <ms>', 'end, epoch ms', parseNonNegativeInt)
      .option(
        '--delegate-type <1-4>',
        '1 open long, 2 open short, 3 close long, 4 close short (default: all)',
        parseDelegateType,
      )
      .option('--page-size <n>', 'rows, 1-100 (default: the exchange default, 100)', parsePositiveInt),
  ).action(
    async (
      opts: CommonOptions & {
        symbol: string;
        startTime: number;
        endTime: number;
        delegateType?: 1 | 2 | 3 | 4;
        pageSize?: number;
      },
    ) => {
      await runOnce(ctx, opts, true, (c) =>
        c.rawPlanHistory({
          symbol: symbolId(opts.symbol),
          startTime: opts.startTime,
          endTime: opts.endTime,
          ...(opts.delegateType !== undefined ? { delegateType: opts.delegateType } : {}),
          ...(opts.pageSize !== undefined ? { pageSize: opts.pageSize } : {}),
        }),
      );
    },
  );

  withCommonOptions(
    api
      .command('plan-place')
      .alias('plan-order')
      .description(
        'POST /capi/v2/order/plan_order: one plan (trigger) order. It rests untriggered until the price ' +
          'crosses --trigger-price, then becomes a market order (no --execute-price: match_type "1", ' +
          'execute_price "0") or a limit order at --execute-price (signed; never retried)',
      )
      .requiredOption('--symbol <symbol>', 'trading pair, e.g. cmt_btcusdt')
      .requiredOption('--client-oid <id>', 'client order id, 1-40 chars of [A-Za-z0-9_-], unique')
      .requiredOption('--side <side>', 'open_long|open_short|close_long|close_short (or 1-4)', parseSide)
      .requiredOption('--size <decimal>', 'quantity in the base coin, e.g. 0.001')
      .requiredOption('--trigger-price <decimal>', 'the price whose crossing triggers the plan')
      .option('--execute-price <decimal>', 'limit price of the order made on trigger (default: market)')
      .option('--margin-mode <1|3>', '1 cross (default), 3 isolated', parseMarginMode),
  ).action(
    async (
      opts: CommonOptions & {
        symbol: string;
        clientOid: string;
        side: '1' | '2' | '3' | '4';
        size: string;
        triggerPrice: string;
        executePrice?: string;
        marginMode?: '1' | '3';
      },
    ) => {
      await runOnce(ctx, opts, true, (c) =>
        c.rawPlanOrder({
          symbol: opts.symbol,
          client_oid: opts.clientOid,
          size: opts.size,
          type: opts.side,
          match_type: opts.executePrice === undefined ? '1' : '0',
          execute_price: opts.executePrice ?? '0',
          trigger_price: opts.triggerPrice,
          ...(opts.marginMode !== undefined ? { marginMode: opts.marginMode } : {}),
        }),
      );
    },
  );

  withCommonOptions(
    api
      .command('plan-cancel')
      .description(
        'POST /capi/v2/order/cancel_plan: cancel one untriggered plan order by exactly one of its ids ' +
          '(signed); a triggered or finished plan answers 50005',
      )
      .requiredOption('--symbol <symbol>', 'trading pair, e.g. cmt_btcusdt')
      .option('--order-id <id>', 'plan order id')
      .option('--client-oid <id>', 'client order id of the plan'),
  ).action(async (opts: CommonOptions & { symbol: string; orderId?: string; clientOid?: string }) => {
    if ((opts.orderId === undefined) === (opts.clientOid === undefined)) {
      throw new BadInputError('give exactly one of --order-id and --client-oid', 'plan-cancel');
    }
    await runOnce(ctx, opts, true, (c) =>
      c.rawCancelPlan({
        symbol: symbolId(opts.symbol),
        ...(opts.orderId !== undefined ? { orderId: orderId(opts.orderId) } : {}),
        ...(opts.clientOid !== undefined ? { clientOid: clientOid(opts.clientOid) } : {}),
      }),
    );
  });

  withCommonOptions(
    api
      .command('plan-current')
      .alias('current-plan')
      .description('GET /capi/v2/order/currentPlan: the plan (trigger) orders still untriggered (signed)')
      .option('--symbol <symbol>', 'trading pair (default: all)')
      .option('--page <n>', 'page number from 0 (default 0)', parseNonNegativeInt)
      .option('--limit <n>', 'rows per page, 1-100 (default: the exchange default, 100)', parsePositiveInt),
  ).action(async (opts: CommonOptions & { symbol?: string; page?: number; limit?: number }) => {
    await runOnce(ctx, opts, true, (c) =>
      c.rawCurrentPlan({
        ...(opts.symbol !== undefined ? { symbol: symbolId(opts.symbol) } : {}),
        ...(opts.page !== undefined ? { page: opts.page } : {}),
        ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
      }),
    );
  });

  withCommonOptions(
    api
      .command('place')
      .description(
        'place orders from a JSON file: an array of entries in wire field names (client_oid, size, type, ' +
          'order_type, match_price, price, …); 1 entry → POST placeOrder, 2-20 → POST batchOrders (signed; never retried)',
      )
      .requiredOption('--symbol <symbol>', 'trading pair of every entry, e.g. cmt_btcusdt')
      .requiredOption('--orders <file>', 'JSON file with 1-20 entries'),
  ).action(async (opts: CommonOptions & { symbol: string; orders: string }) => {
    const { readOrdersFile } = await import('./api-run.ts');
    const entries = await readOrdersFile(opts.orders);
    const symbol = opts.symbol;
    const only = entries.length === 1 ? entries[0] : undefined;
    await runOnce(ctx, opts, true, (c) =>
      only !== undefined
        ? c.rawPlaceOrder({ symbol, ...only })
        : c.rawBatchOrders({ symbol, orderDataList: entries }),
    );
  });

  withCommonOptions(
    api
      .command('cancel')
      .description('POST /capi/v2/order/cancel_order: cancel one order by exactly one of its ids (signed)')
      .requiredOption('--symbol <symbol>', 'trading pair, e.g. cmt_btcusdt')
      .option('--order-id <id>', 'exchange order id')
      .option('--client-oid <id>', 'client order id'),
  ).action(async (opts: CommonOptions & { symbol: string; orderId?: string; clientOid?: string }) => {
    if ((opts.orderId === undefined) === (opts.clientOid === undefined)) {
      throw new BadInputError('give exactly one of --order-id and --client-oid', 'cancel');
    }
    await runOnce(ctx, opts, true, (c) =>
      c.rawCancelOrder({
        symbol: symbolId(opts.symbol),
        ...(opts.orderId !== undefined ? { orderId: orderId(opts.orderId) } : {}),
        ...(opts.clientOid !== undefined ? { clientOid: clientOid(opts.clientOid) } : {}),
      }),
    );
  });
};
