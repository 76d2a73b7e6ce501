// The console's static files: a fixed table from URL path to content, read from the package (the
// chart library from node_modules, as report.html inlines it). No path from a request ever reaches
// the file system, so `..`, encoded slashes or absolute paths cannot name another file: anything not
// in the table is a 404.
import { readFileSync } from 'node:fs';
import { chartLibrary } from '../backtest/report/chart-library.ts';
import { consolePageHtml } from './page-html.ts';

export interface StaticFile {
  readonly type: string;
  readonly body: string;
}

const JS = 'text/javascript; charset=utf-8';

let table: ReadonlyMap<string, StaticFile> | undefined;

function own(name: string): string {
  return readFileSync(new URL(`./${name}`, import.meta.url), 'utf8');
}

/** The file served at `path` (exact match), if any. */
export function staticFile(path: string): StaticFile | undefined {
  table ??= new Map([
    ['/', { type: 'text/html; charset=utf-8', body: consolePageHtml(chartLibrary().version) }],
    ['/static/console.js', { type: JS, body: own('console-page.js') }],
    ['/static/console.css', { type: 'text/css; charset=utf-8', body: own('console-page.css') }],
    ['/static/lightweight-charts.js', { type: JS, body: chartLibrary().source }],
  ]);
  return table.get(path);
}
