import assert from 'node:assert/strict';
import type { TestApp } from '../helper.js';

/** An attribute defined through the API (`POST /api/v2/attributes`, 201 asserted): its id and its options' ids by name. */
export async function defineAttribute(
  app: TestApp,
  headers: Record<string, string>,
  name: string,
  type: string,
  options?: string[],
): Promise<{ id: number; options: Record<string, number> }> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v2/attributes',
    headers,
    payload: { name, type, ...(options ? { options: options.map((o, i) => ({ name: o, list_order: i })) } : {}) },
  });
  assert.equal(res.statusCode, 201, res.body);
  const body = res.json() as { id: number; options: { id: number; name: string }[] };
  return { id: body.id, options: Object.fromEntries(body.options.map((o) => [o.name, o.id])) };
}
