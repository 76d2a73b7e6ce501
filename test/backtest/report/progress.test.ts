import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { clockText, createProgress, groupDigits, progressLine } from '../../../src/backtest/progress.ts';

class FakeStream extends Writable {
  readonly chunks: string[] = [];
  isTTY: boolean;
  columns = 160;
  constructor(tty: boolean) {
    super();
    this.isTTY = tty;
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.chunks.push(chunk.toString());
    done();
  }
  text(): string {
    return this.chunks.join('');
  }
}

describe('progressLine', () => {
  it('shows percent, count, rate and ETA from the injected elapsed time', () => {
    const line = progressLine({ label: 'backtest', processed: 500_000, total: 2_000_000, elapsedMs: 2_000 });
    expect(line).toContain('] 25%');
    expect(line).toContain('500,000/2,000,000 tickers');
    expect(line).toContain('250,000 tickers/s');
    expect(line).toContain('ETA 0:00:06');
  });

  it('shows count and rate only when the total is unknown', () => {
    expect(progressLine({ label: 'replay', processed: 1234, elapsedMs: 1000 })).toBe(
      'replay 1,234 tickers | 1,234 tickers/s',
    );
  });

  it('formats numbers and durations without the locale', () => {
    expect(groupDigits(1234567)).toBe('1,234,567');
    expect(groupDigits(12)).toBe('12');
    expect(clockText(3725)).toBe('1:02:05');
  });
});

describe('createProgress', () => {
  it('writes nothing when the stream is not a TTY', () => {
    const stream = new FakeStream(false);
    const p = createProgress({ now: () => 0, stream, total: 10 });
    p.update(5, 10);
    p.stop();
    expect(stream.chunks).toEqual([]);
  });

  it('draws a bar on a TTY using the injected clock', () => {
    const stream = new FakeStream(true);
    let now = 1_000;
    const p = createProgress({ now: () => now, stream, minIntervalMs: 0 });
    now += 1_000;
    p.update(300, 1_200);
    now += 1_000;
    p.update(600);
    p.stop();
    p.stop(); // idempotent
    const text = stream.text();
    expect(text).toContain('600/1,200 tickers');
    expect(text).toContain('50%');
    expect(text).toContain('300 tickers/s');
    expect(text).toContain('ETA 0:00:02');
  });
});
