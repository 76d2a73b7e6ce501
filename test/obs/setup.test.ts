import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../src/config/index.ts';
import { noopMetrics } from '../../src/obs/metrics.ts';
import { startObservability } from '../../src/obs/setup.ts';

const STRATS = 'strategies:\n  - id: ema\n    file: strategies/ema-cross.ts\n';

describe('startObservability', () => {
  it('serves metrics, health and readiness when enabled, and censors the secrets in logs', async () => {
    const config = parseConfigText(`${STRATS}metrics:\n  port: 0\n`, 'o.yaml', {});
    const lines: string[] = [];
    const obs = await startObservability(config, {
      secrets: ['secret-value-123'],
      readiness: () => ({ reconciled: true, fresh: true }),
      logger: { destination: { write: (s: string) => void lines.push(s) } },
    });
    try {
      expect(obs.server?.host).toBe('127.0.0.1');
      obs.metrics.requestDone('tickers', 200);
      const text = await (await fetch(`${obs.server!.url}/metrics`)).text();
      expect(text).toContain('capibot_requests_total{endpoint="tickers",status="200"} 1');
      expect((await fetch(`${obs.server!.url}/ready`)).status).toBe(200);
      obs.logger.info('using secret-value-123');
      expect(lines.join('')).not.toContain('secret-value-123');
      expect(lines.join('')).toContain('listening');
    } finally {
      await obs.close();
    }
  });

  it('uses no-op metrics and no server when metrics are disabled', async () => {
    const config = parseConfigText(`${STRATS}metrics:\n  enabled: false\n`, 'o.yaml', {});
    const obs = await startObservability(config, {
      secrets: [],
      readiness: () => ({ reconciled: true, fresh: true }),
      logger: { destination: { write: () => undefined } },
    });
    expect(obs.metrics).toBe(noopMetrics);
    expect(obs.server).toBeUndefined();
    await obs.close();
  });
});
