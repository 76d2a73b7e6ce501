// A Redis URL as it may be shown (messages, logs): its password masked. No Redis client imported,
// so a local sweep can name a URL without loading one.

export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    return u.toString();
  } catch {
    return '(invalid URL)';
  }
}
