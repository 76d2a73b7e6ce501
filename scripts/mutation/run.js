// `npm run test:mutation [FILE...]`: mutation-tests each kernel of stryker.config.js on its own,
// against its own tests only, one Stryker run per kernel (concurrency 1 by default; pass
// `--concurrency N` to change it). FILE arguments restrict the run to those kernels.
// Reports: reports/mutation/<kernel path with / as _>.html and .json, plus summary.json/summary.md.
// Exit code 1 when a kernel is below its threshold (stryker.config.js THRESHOLDS).
import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Stryker } from '@stryker-mutator/core';
import baseConfig, { KERNELS, THRESHOLDS } from '../../stryker.config.js';

const args = process.argv.slice(2);
let concurrency = baseConfig.concurrency;
const files = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--concurrency') concurrency = Number(args[++i]);
  else if (a.startsWith('--concurrency=')) concurrency = Number(a.slice('--concurrency='.length));
  else files.push(a.replace(/^\.\//, ''));
}
const unknown = files.filter((f) => !(f in KERNELS));
if (unknown.length > 0) {
  process.stderr.write(
    `not a kernel of stryker.config.js: ${unknown.join(', ')}\nkernels: ${Object.keys(KERNELS).join(', ')}\n`,
  );
  process.exit(2);
}
const selected = files.length > 0 ? files : Object.keys(KERNELS);
const OUT = 'reports/mutation';
mkdirSync(OUT, { recursive: true });

const DETECTED = new Set(['Killed', 'Timeout']);
const UNDETECTED = new Set(['Survived', 'NoCoverage']);
const rows = [];
const started = performance.now();
for (const file of selected) {
  const slug = file.replace(/\.ts$/, '').replaceAll('/', '_');
  process.env['CAPIBOT_MUTATION_TESTS'] = KERNELS[file].join(',');
  const t0 = performance.now();
  const results = await new Stryker({
    ...baseConfig,
    concurrency,
    mutate: [file],
    htmlReporter: { fileName: `${OUT}/${slug}.html` },
    jsonReporter: { fileName: `${OUT}/${slug}.json` },
  }).runMutationTest();
  const count = (s) => results.filter((r) => r.status === s).length;
  const detected = results.filter((r) => DETECTED.has(r.status)).length;
  const undetected = results.filter((r) => UNDETECTED.has(r.status)).length;
  // Ignorer rules (prose, case labels) versus `// Stryker disable` comments in the kernel.
  const disabled = results.filter(
    (r) => r.status === 'Ignored' && !(r.statusReason ?? '').startsWith('[ignorer]'),
  ).length;
  const score = detected + undetected > 0 ? (100 * detected) / (detected + undetected) : 100;
  const threshold = THRESHOLDS[file] ?? THRESHOLDS.default;
  rows.push({
    file,
    mutants: results.length,
    killed: count('Killed'),
    timeout: count('Timeout'),
    survived: count('Survived'),
    noCoverage: count('NoCoverage'),
    errors: count('CompileError') + count('RuntimeError'),
    ignoredByRule: count('Ignored') - disabled,
    disabled,
    score: Math.floor(score * 10) / 10,
    threshold,
    seconds: Math.round((performance.now() - t0) / 1000),
  });
}
const seconds = Math.round((performance.now() - started) / 1000);
const header =
  '| file | score | killed | timeout | survived | no coverage | disabled | ignored by rule | errors | time |';
const lines = [header, '|---|---|---|---|---|---|---|---|---|---|'];
for (const r of rows) {
  lines.push(
    `| ${r.file} | ${r.score}% (min ${r.threshold}%) | ${r.killed} | ${r.timeout} | ${r.survived} | ${r.noCoverage} | ${r.disabled} | ${r.ignoredByRule} | ${r.errors} | ${r.seconds} s |`,
  );
}
lines.push('', `total ${seconds} s, concurrency ${concurrency}`);
const md = lines.join('\n');
writeFileSync(`${OUT}/summary.md`, `${md}\n`);
writeFileSync(`${OUT}/summary.json`, `${JSON.stringify({ seconds, concurrency, rows }, null, 2)}\n`);
console.log(`\n${md}\n`);
const below = rows.filter((r) => r.score < r.threshold);
if (below.length > 0) {
  console.log(`below threshold: ${below.map((r) => `${r.file} ${r.score}% < ${r.threshold}%`).join(', ')}`);
  process.exitCode = 1;
}
