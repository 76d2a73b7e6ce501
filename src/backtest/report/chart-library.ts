// The charting library inlined into report.html: the standalone (global `LightweightCharts`)
// production build of lightweight-charts v5, read from node_modules so the report needs no network.
// The package's `exports` map hides dist/, so the file is found next to its package.json.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const CHART_LIBRARY_FILE = 'dist/lightweight-charts.standalone.production.js';

let cached: { readonly path: string; readonly source: string; readonly version: string } | undefined;

/** The library's source text, its path and version (read once per process). */
export function chartLibrary(): { readonly path: string; readonly source: string; readonly version: string } {
  if (cached === undefined) {
    const pkgPath = createRequire(import.meta.url).resolve('lightweight-charts/package.json');
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { version?: unknown };
    const path = join(dirname(pkgPath), CHART_LIBRARY_FILE);
    cached = { path, source: readFileSync(path, 'utf8'), version: String(pkg.version) };
  }
  return cached;
}
