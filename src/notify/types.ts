// One notification: what happened, in words and as data. Money in `data` is a decimal string.
import type { NotifyEventKind } from '../config/schema-console.ts';

export type { NotifyEventKind };

export interface Notice {
  readonly kind: NotifyEventKind;
  /** Epoch ms (wall clock). */
  readonly at: number;
  /** A short headline, e.g. `capibot: HALTED`. */
  readonly title: string;
  /** One or a few lines for humans. */
  readonly text: string;
  readonly data: Readonly<Record<string, string | number | boolean | null>>;
}

export type NotifyFormat = 'json' | 'telegram' | 'discord' | 'slack' | 'ntfy';

export interface NotifyTarget {
  readonly name: string;
  readonly format: NotifyFormat;
  /** The URL (a secret: never logged or shown). */
  readonly url: string;
  readonly chatId?: string;
  readonly events: readonly NotifyEventKind[];
}
