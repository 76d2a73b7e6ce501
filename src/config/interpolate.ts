// `${VAR}` / `${VAR:-default}` replacement in config values (never in keys).
//   ${VAR}            the value of VAR; an error when VAR is not set (an empty value is a value)
//   ${VAR:-fallback}  the value of VAR, or `fallback` when VAR is unset or empty (as in POSIX shells)
//   $${               a literal `${`
// Names follow the shell: [A-Za-z_][A-Za-z0-9_]*. The fallback is literal text up to the closing `}`.

export type Env = Readonly<Record<string, string | undefined>>;

export type InterpolationResult =
  | { readonly ok: true; readonly value: string; readonly replaced: boolean }
  | { readonly ok: false; readonly message: string };

const REFERENCE = /\$\$\{|\$\{([^}]*)\}|\$\{/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True when the text contains at least one `${...}` reference. */
export function hasReference(textValue: string): boolean {
  return /(^|[^$])\$\{/.test(textValue);
}

/** True when the whole text is references only (e.g. `${KEY}`): nothing is written inline. */
export function isPureReference(textValue: string): boolean {
  return /^(\$\{[^}]*\})+$/.test(textValue.trim());
}

export function interpolate(textValue: string, env: Env): InterpolationResult {
  let failure: string | undefined;
  let replaced = false;
  const value = textValue.replace(REFERENCE, (match: string, inner: string | undefined) => {
    if (match === '$${') return '${';
    if (failure !== undefined) return match;
    if (inner === undefined) {
      failure = 'unterminated ${ (write $${ for a literal ${)';
      return match;
    }
    const sep = inner.indexOf(':-');
    const name = sep === -1 ? inner : inner.slice(0, sep);
    if (!NAME.test(name)) {
      failure = `bad environment reference \${${inner}}: expected \${NAME} or \${NAME:-default}`;
      return match;
    }
    replaced = true;
    const set = env[name];
    if (sep !== -1) {
      return set !== undefined && set !== '' ? set : inner.slice(sep + 2);
    }
    if (set === undefined) {
      failure = `environment variable ${name} is not set (write \${${name}:-default} for a fallback)`;
      return match;
    }
    return set;
  });
  return failure !== undefined ? { ok: false, message: failure } : { ok: true, value, replaced };
}
