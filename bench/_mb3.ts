import { isRecordedPollShape, parseRecordingLine } from '../src/market/recording/format.ts';
import { LineSplitter, TextChunkReader } from '../src/market/recording/text-chunks.ts';
import { readRecordingBatches } from '../src/market/recording/reader.ts';
const path = process.argv[2]!;
async function bare() { const r = await TextChunkReader.open(path); const s = new LineSplitter(); let n = 0; for (;;) { const c = await r.next(); if (c === undefined) break; for (const l of s.push(c)) { JSON.parse(l); n++; } } return n; }
async function shape() { const r = await TextChunkReader.open(path); const s = new LineSplitter(); let n = 0; for (;;) { const c = await r.next(); if (c === undefined) break; for (const l of s.push(c)) { if (isRecordedPollShape(JSON.parse(l))) n++; } } return n; }
async function line() { const r = await TextChunkReader.open(path); const s = new LineSplitter(); let n = 0; let no = 0; for (;;) { const c = await r.next(); if (c === undefined) break; for (const l of s.push(c)) { if (parseRecordingLine(l, path, ++no).kind === 'poll') n++; } } return n; }
async function batches() { let n = 0; for await (const b of readRecordingBatches(path)) n += b.length; return n; }
const fns: Record<string, () => Promise<number>> = { bare, shape, line, batches };
const best: Record<string, number> = {};
for (let r = 0; r < 9; r++) for (const [k, f] of Object.entries(fns)) { const c0 = process.cpuUsage(); await f(); const c = process.cpuUsage(c0); const dt = (c.user + c.system) / 1000; best[k] = Math.min(best[k] ?? 1e9, dt); }
console.log(Object.entries(best).map(([k, v]) => `${k} ${v.toFixed(1)}ms`).join('  '));
