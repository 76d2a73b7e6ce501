import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { hasReference, interpolate, isPureReference } from '../../src/config/interpolate.ts';

describe('interpolate', () => {
  const env = { A: 'alpha', EMPTY: '', PORT: '9464' };

  it('replaces ${VAR} with its value, anywhere in the text', () => {
    expect(interpolate('x-${A}-y', env)).toEqual({ ok: true, value: 'x-alpha-y', replaced: true });
    expect(interpolate('${A}${PORT}', env)).toEqual({ ok: true, value: 'alpha9464', replaced: true });
  });

  it('keeps an empty value for ${VAR} (set is set)', () => {
    expect(interpolate('[${EMPTY}]', env)).toEqual({ ok: true, value: '[]', replaced: true });
  });

  it('uses the fallback of ${VAR:-default} when unset or empty', () => {
    expect(interpolate('${NOPE:-dflt}', env)).toMatchObject({ ok: true, value: 'dflt' });
    expect(interpolate('${EMPTY:-dflt}', env)).toMatchObject({ ok: true, value: 'dflt' });
    expect(interpolate('${A:-dflt}', env)).toMatchObject({ ok: true, value: 'alpha' });
    expect(interpolate('${NOPE:-}', env)).toMatchObject({ ok: true, value: '' });
    expect(interpolate('${NOPE:-a:-b c}', env)).toMatchObject({ ok: true, value: 'a:-b c' });
  });

  it('fails on an unset variable without fallback, naming it', () => {
    const r = interpolate('${MISSING_VAR}', env);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toContain('MISSING_VAR is not set');
  });

  it('refuses bad names and unterminated references', () => {
    expect(interpolate('${1A}', env).ok).toBe(false);
    expect(interpolate('${A B}', env).ok).toBe(false);
    expect(interpolate('${}', env).ok).toBe(false);
    expect(interpolate('${A', env).ok).toBe(false);
  });

  it('writes $${ as a literal ${', () => {
    expect(interpolate('cost $${A}', env)).toEqual({ ok: true, value: 'cost ${A}', replaced: false });
  });

  it('leaves text without references unchanged', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('${')),
        (s) => {
          expect(interpolate(s, env)).toEqual({ ok: true, value: s, replaced: false });
        },
      ),
    );
  });

  it('hasReference / isPureReference', () => {
    expect(hasReference('a ${B}')).toBe(true);
    expect(hasReference('a $${B}')).toBe(false);
    expect(hasReference('plain')).toBe(false);
    expect(isPureReference('${KEY}')).toBe(true);
    expect(isPureReference('${KEY}${OTHER:-x}')).toBe(true);
    expect(isPureReference('abc${KEY}')).toBe(false);
  });
});
