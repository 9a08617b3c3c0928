import { sql } from 'drizzle-orm';
import type { Db } from '../src/db/client.js';

/**
 * A database that stops for a while, once, when asked: a statement-level trigger `name` after `event` on `table`
 * sleeps for the seconds last written with `pause(seconds)`, then forgets them. For tests of what happens while a
 * statement is slow (a request timeout, a refresh that outlasts a wait), on PostgreSQL and PGlite alike.
 */
export async function pauseTrigger(db: Db, name: string, on: { table: string; event: 'insert' | 'update' | 'delete' }) {
  for (const statement of [
    `create table ${name} (seconds float8)`,
    `create function ${name}() returns trigger language plpgsql as $$
     declare pause float8;
     begin
       delete from ${name} returning seconds into pause;
       if pause is not null then perform pg_sleep(pause); end if;
       return null;
     end $$`,
    `create trigger ${name} after ${on.event} on ${on.table} for each statement execute function ${name}()`,
  ])
    await db.execute(sql.raw(statement));
  return {
    /** The next `event` on `table` sleeps this long. */
    pause: (seconds: number) => db.execute(sql.raw(`insert into ${name} values (${Number(seconds)})`)),
  };
}
