// The recording `backtest --strategy FILE` replays without --data, in a module of its own so that the
// command's definition (and its --help) names it without loading the backtest.

/**
 * The bundled sample `npm start` replays (config/example.yaml's backtest.data), relative to
 * capibot's own folder.
 */
export const DEFAULT_BACKTEST_DATA = 'data/binance-btc-eth-20240719-1s.ndjson.gz';
