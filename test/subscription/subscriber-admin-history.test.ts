import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createList, createSubscriber } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';

/*
 * An administrator's edits of a subscriber's attributes and lists are in the subscriber's history: who (the login),
 * what (attribute old → new, list joined / left) and when, as the subscriber page shows it.
 */

let t: TestApp;
let headers: Record<string, string>;
let login: string;
before(async () => {
  t = await startTestApp();
  const session = await t.adminWithSession();
  headers = { ...session.headers, 'user-agent': 'history-test' };
  login = session.admin.loginName;
});
after(() => t.close());

async function lastEntries(subscriberId: number, n: number) {
  const res = await t.inject({ method: 'GET', url: `/api/v2/subscribers/${subscriberId}`, headers });
  assert.equal(res.statusCode, 200, res.body);
  return (res.json().history as Record<string, unknown>[]).slice(-n);
}

describe("history of an administrator's edits", () => {
  test('attribute values: set, changed, unchanged (no entry), option shown by name, deleted', async () => {
    const s = await createSubscriber(t.db, { email: 'hist@attr.example' });
    const name = (await t.inject({ method: 'POST', url: '/api/v2/attributes', headers, payload: { name: 'First name', type: 'textline' } })).json();
    const colour = (
      await t.inject({
        method: 'POST',
        url: '/api/v2/attributes',
        headers,
        payload: { name: 'Colour', type: 'select', options: [{ name: 'Red' }, { name: 'Blue' }] },
      })
    ).json();
    const set = async (definitionId: number, value: string) => {
      const res = await t.inject({ method: 'PUT', url: `/api/v2/subscribers/${s.id}/attributes/${definitionId}`, headers, payload: { value } });
      assert.equal(res.statusCode, 201, res.body);
    };
    await set(name.id, 'Anne');
    await set(name.id, 'Ann');
    await set(name.id, 'Ann');
    const blue = colour.options.find((o: { name: string }) => o.name === 'Blue').id;
    await set(colour.id, String(blue));
    const removed = await t.inject({ method: 'DELETE', url: `/api/v2/subscribers/${s.id}/attributes/${name.id}`, headers });
    assert.equal(removed.statusCode, 204);
    const entries = await lastEntries(s.id, 5);
    assert.equal(entries.length, 4, 'the unchanged value wrote nothing');
    const entry = (detail: string) => ({
      id: entries.find((e) => e.detail === detail)?.id,
      ip: '127.0.0.1',
      created_at: atom(entries.find((e) => e.detail === detail)?.created_at),
      summary: `Update by ${login}`,
      detail,
      system_info: 'User-Agent: history-test',
    });
    assert.deepEqual(entries, [
      entry('attribute "First name" = "Anne" *changed* from (none)'),
      entry('attribute "First name" = "Ann" *changed* from "Anne"'),
      entry('attribute "Colour" = "Blue" *changed* from (none)'),
      entry('attribute "First name" = (none) *changed* from "Ann"'),
    ]);
  });

  test('lists: joined and left by the list members endpoints, members already there get nothing', async () => {
    const s = await createSubscriber(t.db, { email: 'hist@list.example', confirmed: true });
    const list = await createList(t.db, { name: 'History list' });
    const add = () =>
      t.inject({ method: 'POST', url: `/api/v2/lists/${list.id}/subscribers`, headers, payload: { emails: [s.email], auto_confirm: true } });
    assert.equal((await add()).statusCode, 201);
    assert.equal((await add()).statusCode, 201);
    const left = await t.inject({ method: 'DELETE', url: `/api/v2/lists/${list.id}/subscribers?emails[]=${s.email}`, headers });
    assert.equal(left.statusCode, 204);
    const entries = await lastEntries(s.id, 10);
    assert.deepEqual(
      entries.map((e) => [e.summary, e.detail]),
      [
        [`List change by ${login}`, `Joined list "History list" (#${list.id})`],
        [`List change by ${login}`, `Left list "History list" (#${list.id})`],
      ],
    );
  });
});
