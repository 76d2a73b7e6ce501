// The configured webhook targets with their URLs read from the environment. A target whose variable
// is unset, or holds anything but an http(s) URL, is refused at start (ConfigError naming the
// variable, never its value).
import type { Env } from '../config/interpolate.ts';
import type { NotifyConfig } from '../config/schema.ts';
import { ConfigError } from '../core/errors.ts';
import type { NotifyTarget } from './types.ts';

export function resolveNotifyTargets(config: NotifyConfig, env: Env): NotifyTarget[] {
  const names = new Set<string>();
  return config.targets.map((t, i) => {
    const where = `notify.targets[${i}]`;
    if (names.has(t.name)) throw new ConfigError(`two targets are named ${t.name}`, `${where}.name`);
    names.add(t.name);
    const url = env[t.urlEnv] ?? '';
    if (url === '')
      throw new ConfigError(`${t.urlEnv} is not set (the URL of target ${t.name})`, `${where}.urlEnv`);
    if (!/^https?:\/\/[^\s/]+/.test(url) || !URL.canParse(url))
      throw new ConfigError(`${t.urlEnv} does not hold an http(s) URL (target ${t.name})`, `${where}.urlEnv`);
    return {
      name: t.name,
      format: t.format,
      url,
      ...(t.chatId !== undefined ? { chatId: t.chatId } : {}),
      events: t.events,
    };
  });
}
