// Opening the store of a config for the operator commands.
import { existsSync } from 'node:fs';
import { StoreError } from '../core/errors.ts';
import { SqliteStore } from '../store/sqlite-store.ts';

/**
 * The store without its lease (the runner may hold it): reads only, plus the few meta values of the
 * operator channel. Refuses a path where no store exists rather than creating an empty one.
 */
export function openStoreWithoutLease(path: string): SqliteStore {
  if (!existsSync(path)) {
    throw new StoreError(`no store at ${path} (store.path): capibot has not run with this config yet`);
  }
  return new SqliteStore({ path, lease: false });
}
