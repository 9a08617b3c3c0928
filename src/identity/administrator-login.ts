import type { Executor } from '../db/client.js';
import { findAdministrator } from './administrator.repository.js';

/** An administrator's login name as a subscriber's history records it; `#id` once the administrator is gone. */
export async function loginNameOf(db: Executor, id: number): Promise<string> {
  return (await findAdministrator(db, id))?.loginName ?? `#${id}`;
}
