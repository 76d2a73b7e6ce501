// Headless check of report.html in a real browser (Debian's chromium): the page loads without
// errors and the charts have data. A missing chromium FAILS this test (it must be installed in CI:
// `apt-get install -y chromium`); set CAPIBOT_SKIP_BROWSER=1 to skip it deliberately.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { writeReport } from '../../src/backtest/report/index.ts';
import type { RunRecord } from '../../src/backtest/report/types.ts';
import { fill, MIN, order, roundTrip, T0 } from './report/fixtures.ts';
import { HOSTILE_ID, hostileRecord } from './report/hostile.ts';
import { findChromium, headlessArgs } from '../helpers/chromium.ts';

/** Long 2 then short 1 (a flip), then long 1 still open at the end. */
function flipRecord(): RunRecord {
  const base = roundTrip();
  return {
    ...base,
    orders: [
      order(1, 'open_long', 'filled'),
      order(2, 'close_long', 'filled'),
      order(3, 'open_short', 'filled'),
      order(4, 'close_short', 'filled'),
      order(5, 'open_long', 'filled'),
    ],
    fills: [
      fill(1, 1, T0, { size: '2', value: '200', fee: '0.1' }),
      fill(2, 2, T0 + MIN, { size: '2', value: '200', fee: '0.1', pnl: '0' }),
      fill(3, 3, T0 + MIN, { size: '1', value: '100', fee: '0.05' }),
      fill(4, 4, T0 + 2 * MIN, { size: '1', value: '105', fee: '0.05', pnl: '-5' }),
      fill(5, 5, T0 + 3 * MIN, { size: '1', value: '110', fee: '0.05' }),
    ],
  };
}

const run = promisify(execFile);
const SKIP = process.env.CAPIBOT_SKIP_BROWSER === '1';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tempDir(prefix: string): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Loads `file` in headless chromium and returns the DOM after scripts ran. */
async function dumpDom(chromium: string, file: string): Promise<string> {
  const profile = await tempDir('capibot-chromium-');
  const { stdout } = await run(
    chromium,
    [...headlessArgs(profile), '--virtual-time-budget=5000', '--dump-dom', pathToFileURL(file).href],
    { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

function bodyAttr(dom: string, name: string): string | undefined {
  const body = /<body[^>]*>/.exec(dom)?.[0] ?? '';
  return new RegExp(`\\s${name}="([^"]*)"`).exec(body)?.[1];
}

describe.skipIf(SKIP)('report.html in headless chromium', () => {
  const chromium = findChromium();

  it('finds chromium', () => {
    if (chromium === undefined) {
      expect.fail(
        "chromium not found (looked at $CHROMIUM_BIN, or else PATH and /usr/bin/chromium): install Debian's chromium " +
          '(`apt-get install -y chromium`), or set CAPIBOT_SKIP_BROWSER=1 to skip the browser check',
      );
    }
  });

  it('draws every chart without an error, even with hostile texts in the data', async () => {
    if (chromium === undefined) return expect.fail('chromium not found (see the test above)');
    const dir = await tempDir('capibot-report-html-');
    const { files } = await writeReport(dir, hostileRecord());
    const dom = await dumpDom(chromium, files.html);
    expect(bodyAttr(dom, 'data-status')).toBe('ok');
    expect(Number(bodyAttr(dom, 'data-points'))).toBeGreaterThan(0);
    expect(Number(bodyAttr(dom, 'data-canvases'))).toBeGreaterThan(0);
    // The hostile strategy id was shown as text, not run as markup.
    expect(dom).toContain('Strategy &lt;/script&gt;&lt;script&gt;document.body.dataset.status="pwned"');
    expect(HOSTILE_ID).toContain('</script>');
    expect(dom).toContain('Net PnL');
    // The trade table has one row per trade of report.json.
    const report = JSON.parse(await readFile(files.json, 'utf8')) as { trades: unknown[] };
    expect(report.trades.length).toBeGreaterThan(0);
    expect(dom.match(/<tr class="trade"/g) ?? []).toHaveLength(report.trades.length);
    expect(Number(bodyAttr(dom, 'data-trade-rows'))).toBe(report.trades.length);
  });

  it('lists every trade of a run with a flip and a position open at the end', async () => {
    if (chromium === undefined) return expect.fail('chromium not found (see the test above)');
    const dir = await tempDir('capibot-report-html-');
    const { files } = await writeReport(dir, flipRecord());
    const dom = await dumpDom(chromium, files.html);
    expect(bodyAttr(dom, 'data-status')).toBe('ok');
    const report = JSON.parse(await readFile(files.json, 'utf8')) as { trades: unknown[] };
    expect(report.trades).toHaveLength(3);
    expect(dom.match(/<tr class="trade"/g) ?? []).toHaveLength(3);
    expect(dom).toContain('end of data');
  });

  it('reports a page that fails to draw as an error', async () => {
    if (chromium === undefined) return expect.fail('chromium not found (see the test above)');
    const dir = await tempDir('capibot-report-html-');
    const { files } = await writeReport(dir, hostileRecord());
    const html = await readFile(files.html, 'utf8');
    // Remove the chart library: the page must say so instead of claiming success.
    const broken = html.replace(/(<script id="chart-library">)[\s\S]*?(<\/script>)/, '$1$2');
    expect(broken).not.toBe(html);
    const file = join(dir, 'broken.html');
    await writeFile(file, broken);
    const dom = await dumpDom(chromium, file);
    expect(bodyAttr(dom, 'data-status')).toBe('error: the chart library did not load');
  });
});
