// POST /api/control: the console's only mutating route. The body is parsed with zod (strict: an
// unknown field is a 400); the control token is required (a read-only token gets 403), and a finished
// backtest has nothing to control (403). The kill switch needs `confirm: "KILL"` in the body, so a
// stray request without the page's confirmation step cannot halt anything.
import { z } from 'zod';
import type { ConsoleRole, ConsoleSource } from './types.ts';

const strategy = z.string().min(1).max(64);

export const ControlRequestSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('pause'), strategy }),
  z.strictObject({ action: z.literal('resume'), strategy }),
  z.strictObject({
    action: z.literal('kill'),
    confirm: z.literal('KILL'),
    reason: z.string().max(200).optional(),
  }),
]);
export type ControlRequest = z.infer<typeof ControlRequestSchema>;

export interface ControlAnswer {
  readonly status: 200 | 400 | 403 | 404;
  readonly body: Readonly<Record<string, unknown>>;
}

export function handleControl(source: ConsoleSource, role: ConsoleRole, raw: unknown): ControlAnswer {
  if (role !== 'control') return { status: 403, body: { error: 'this token may look, not act' } };
  const control = source.control;
  if (control === undefined)
    return { status: 403, body: { error: 'a finished backtest cannot be controlled' } };
  const parsed = ControlRequestSchema.safeParse(raw);
  if (!parsed.success)
    return {
      status: 400,
      body: {
        error: 'bad control request',
        issues: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`),
      },
    };
  const req = parsed.data;
  switch (req.action) {
    case 'pause':
    case 'resume': {
      // Only the run's own ids reach the control (the string is never used as a key elsewhere).
      if (!source.strategyIds.includes(req.strategy))
        return { status: 404, body: { error: 'no such strategy' } };
      const ok = req.action === 'pause' ? control.pause(req.strategy) : control.resume(req.strategy);
      return ok
        ? { status: 200, body: { ok: true, action: req.action, strategy: req.strategy } }
        : { status: 404, body: { error: 'no such strategy' } };
    }
    case 'kill': {
      const engaged = control.kill(req.reason ?? 'operator kill from the console');
      return { status: 200, body: { ok: engaged, action: 'kill' } };
    }
  }
}
