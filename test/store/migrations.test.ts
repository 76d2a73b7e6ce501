import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { StoreError } from '../../src/core/errors.ts';
import { LATEST_SCHEMA_VERSION, MIGRATIONS, migrate, type Migration } from '../../src/store/migrations.ts';

describe('migrate', () => {
  it('applies every migration once and is idempotent', () => {
    const db = new Database(':memory:');
    expect(migrate(db, 1)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(migrate(db, 2)).toEqual([]);
    expect(migrate(db, 3)).toEqual([]);
    const rows = db.prepare('SELECT version, applied_at FROM schema_version ORDER BY version').all();
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, applied_at: 1 })));
    db.close();
  });

  it('applies only the new migrations to an older store', () => {
    const db = new Database(':memory:');
    migrate(db, 1, MIGRATIONS.slice(0, 1));
    expect(migrate(db, 2)).toEqual(MIGRATIONS.slice(1).map((m) => m.version));
    db.close();
  });

  it('rolls a failing migration back entirely and names it', () => {
    const db = new Database(':memory:');
    const broken: Migration[] = [
      ...MIGRATIONS,
      {
        version: LATEST_SCHEMA_VERSION + 1,
        name: 'broken',
        sql: 'CREATE TABLE half (x); SELECT * FROM nowhere;',
      },
    ];
    expect(() => migrate(db, 1, broken)).toThrow(/migration \d+ \(broken\) failed/);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'half'").pluck().get()).toBe(0);
    expect(Math.max(...(db.prepare('SELECT version FROM schema_version').pluck().all() as number[]))).toBe(
      LATEST_SCHEMA_VERSION,
    );
    db.close();
  });

  it('refuses a store written by a newer capibot', () => {
    const db = new Database(':memory:');
    migrate(db, 1);
    db.prepare("INSERT INTO schema_version VALUES (999, 'future', 1)").run();
    expect(() => migrate(db, 2)).toThrow(StoreError);
    db.close();
  });

  it('refuses a gap in the numbering', () => {
    const db = new Database(':memory:');
    expect(() => migrate(db, 1, [{ version: 2, name: 'x', sql: '' }])).toThrow(/numbered/);
    db.close();
  });
});
