import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { subscriberAttributeValues } from '../../src/db/schema/index.js';
import { segmentCountSource } from '../../src/segments/segment.compile.js';
import type { AttributeCondition } from '../../src/segments/segment.definition.js';
import { createCampaign, createDelivery, createList, createSubscriber, subscribe } from '../factories.js';
import { startTestApp, type TestApp } from '../helper.js';
import { defineAttribute as defineSegmentAttribute } from './attributes.js';

/*
 * The count's two shapes (segment.compile.ts, segmentCountSource): from `subscribers`, or from the index range of one
 * list or one attribute value every match needs. Forty subscribers with a pattern of values, lists and opens; each
 * definition's count is checked against the same rule written here in JavaScript over that pattern, and against the
 * page of matches (which always reads `subscribers`). Definitions where the short shape applies and where it must
 * not (a flag of the subscriber's row, `any`, two lists, a checkbox group), and after a subscriber is deleted.
 */

let t: TestApp;
let headers: Record<string, string>;
const DAY = 86_400_000;

interface Person {
  id: number;
  confirmed: boolean;
  country: 'Germany' | 'France' | 'Spain' | null;
  newsletter: boolean;
  birthday: string;
  topics: string[];
  inL: boolean;
  inM: boolean;
  openedRecently: boolean;
  openedEver: boolean;
}
const people: Person[] = [];
const option: Record<string, number> = {};
const attr: Record<string, number> = {};
let listL: number;
let listM: number;

async function defineAttribute(name: string, type: string, options?: string[]) {
  const defined = await defineSegmentAttribute(t, headers, name, type, options);
  attr[name] = defined.id;
  for (const [o, id] of Object.entries(defined.options)) option[o] = id;
}

before(async () => {
  t = await startTestApp();
  headers = (await t.adminWithSession({ privileges: { subscribers: true } })).headers;
  await defineAttribute('Country', 'select', ['Germany', 'France', 'Spain']);
  await defineAttribute('Newsletter', 'checkbox');
  await defineAttribute('Birthday', 'date');
  await defineAttribute('Topics', 'checkboxgroup', ['News', 'Sport']);
  listL = (await createList(t.db, { name: 'L' })).id;
  listM = (await createList(t.db, { name: 'M' })).id;
  const campaign = await createCampaign(t.db, { status: 'sent' });
  const countries = ['Germany', 'France', 'Spain'] as const;
  for (let i = 0; i < 40; i++) {
    const p: Person = {
      id: (await createSubscriber(t.db, { confirmed: i % 5 !== 0 })).id,
      confirmed: i % 5 !== 0,
      country: i % 7 === 0 ? null : countries[i % 3]!,
      newsletter: i % 2 === 0,
      birthday: `1990-01-0${1 + (i % 3)}`,
      topics: i % 3 === 0 ? ['News', 'Sport'] : i % 3 === 1 ? ['Sport'] : [],
      inL: i % 3 !== 2,
      inM: i % 4 === 0,
      openedRecently: i % 4 < 2,
      openedEver: i % 4 < 3,
    };
    people.push(p);
    const values = [
      { definitionId: attr.Newsletter!, value: p.newsletter ? '1' : '0' },
      { definitionId: attr.Birthday!, value: p.birthday },
      ...(p.country ? [{ definitionId: attr.Country!, value: String(option[p.country]) }] : []),
      ...(p.topics.length ? [{ definitionId: attr.Topics!, value: p.topics.map((o) => option[o]).join(',') }] : []),
    ];
    await t.db.insert(subscriberAttributeValues).values(values.map((v) => ({ ...v, subscriberId: p.id })));
    if (p.inL) await subscribe(t.db, listL, p.id);
    if (p.inM) await subscribe(t.db, listM, p.id);
    // Opened within the last 90 days, 200 days ago, or never.
    const opened = p.openedRecently ? new Date() : i % 4 === 2 ? new Date(Date.now() - 200 * DAY) : null;
    await createDelivery(t.db, campaign.id, p.id, { firstOpenedAt: opened, firstHumanOpenedAt: opened });
  }
});
after(() => t.close());

/** The count of an unsaved definition, checked against the page of matches, and the ids of the page. */
async function counted(definition: unknown): Promise<{ count: number; sendable: number; ids: number[] }> {
  const res = await t.inject({ method: 'POST', url: '/api/v2/segments/count', headers, payload: { definition } });
  assert.equal(res.statusCode, 200, res.body);
  const { count, sendable } = res.json() as { count: number; sendable: number };
  const page = await t.inject({ method: 'POST', url: '/api/v2/segments/subscribers', headers, payload: { definition, limit: 100 } });
  assert.equal(page.statusCode, 200, page.body);
  const ids = (page.json() as { items: { id: number }[] }).items.map((i) => i.id);
  assert.equal(count, ids.length);
  return { count, sendable, ids };
}

/**
 * The matches of `rule`, and of them those a campaign to the segment would mail: confirmed and on some list (no one
 * here is blacklisted or disabled). Some people are on no list, so the membership is tested whether or not the
 * definition names a list (the count skips that probe when it does).
 */
async function expectMatches(definition: unknown, rule: (p: Person) => boolean) {
  const expected = people.filter(rule);
  assert.ok(expected.length > 0 && expected.length < people.length, 'the rule should split the subscribers');
  const sendable = expected.filter((p) => p.confirmed && (p.inL || p.inM)).length;
  assert.deepEqual(await counted(definition), { count: expected.length, sendable, ids: expected.map((p) => p.id) });
}

const germany = { type: 'attribute', attribute_id: 0, op: 'any_of', value: ['Germany'] };
const inL = () => ({ type: 'list', op: 'member_of', list_ids: [listL] });
const opened90 = { type: 'engagement', action: 'opened', within_last_days: 90 };

describe('segments: the count from a list or an attribute value agrees with the rule', () => {
  test('where the count starts from one index range', async () => {
    const country = { ...germany, attribute_id: attr.Country };
    await expectMatches({ match: 'all', conditions: [country, inL(), opened90] }, (p) => p.country === 'Germany' && p.inL && p.openedRecently);
    await expectMatches({ match: 'all', conditions: [inL()] }, (p) => p.inL);
    await expectMatches({ match: 'all', conditions: [{ type: 'attribute', attribute_id: attr.Newsletter, op: 'is_set' }] }, (p) => p.newsletter);
    await expectMatches(
      {
        match: 'all',
        conditions: [
          { type: 'attribute', attribute_id: attr.Birthday, op: 'on', value: '1990-01-02' },
          { type: 'list', op: 'not_member_of', list_ids: [listM] },
          { type: 'group', match: 'any', conditions: [opened90, { ...country, op: 'none_of' }] },
        ],
      },
      (p) => p.birthday === '1990-01-02' && !p.inM && (p.openedRecently || p.country !== 'Germany'),
    );
    // A membership with the list's join date, and a condition that is not a range first: the list still starts.
    await expectMatches(
      {
        match: 'all',
        conditions: [
          { type: 'engagement', action: 'opened', negate: true },
          { type: 'subscribed', op: 'within_last_days', value: 1, list_id: listL },
        ],
      },
      (p) => p.inL && !p.openedEver,
    );
  });

  test('where it must not: the subscriber’s own row, `any`, several lists, a checkbox group', async () => {
    await expectMatches({ match: 'all', conditions: [inL(), { type: 'confirmed', value: true }] }, (p) => p.inL && p.confirmed);
    await expectMatches({ match: 'any', conditions: [inL(), opened90] }, (p) => p.inL || p.openedRecently);
    // A subscriber in both lists is counted once.
    await expectMatches(
      { match: 'all', conditions: [{ type: 'list', op: 'member_of', list_ids: [listL, listM] }, opened90] },
      (p) => (p.inL || p.inM) && p.openedRecently,
    );
    await expectMatches(
      { match: 'all', conditions: [{ type: 'attribute', attribute_id: attr.Topics, op: 'any_of', value: ['Sport'] }, inL()] },
      (p) => p.topics.includes('Sport') && p.inL,
    );
  });

  test('a deleted subscriber is no longer counted, from either shape', async () => {
    const gone = people.find((p) => p.country === 'Germany' && p.inL && p.openedRecently && p.confirmed)!;
    const res = await t.inject({ method: 'DELETE', url: `/api/v2/subscribers/${gone.id}`, headers });
    assert.equal(res.statusCode, 204, res.body);
    people.splice(people.indexOf(gone), 1);
    const country = { ...germany, attribute_id: attr.Country };
    await expectMatches({ match: 'all', conditions: [country, inL(), opened90] }, (p) => p.country === 'Germany' && p.inL && p.openedRecently);
    await expectMatches({ match: 'all', conditions: [country, { type: 'confirmed', value: true }] }, (p) => p.country === 'Germany' && p.confirmed);
  });
});

describe('segments: the attribute values index', () => {
  // The index is partial (schema/subscription.ts): the planner can read it only when the condition repeats its
  // predicate word for word. With scans off, the plan shows whether the compiled conditions still do.
  async function planOf(condition: AttributeCondition): Promise<string> {
    const { from, predicate } = segmentCountSource({ type: 'group', match: 'all', conditions: [condition] });
    const rows = await t.db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      return queryRows<{ 'QUERY PLAN': string }>(tx, sql`explain select count(*) from ${from} where ${predicate}`);
    });
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  }

  test('an option, a ticked box and a date are counted from the index range of their value', async () => {
    const conditions: AttributeCondition[] = [
      { type: 'attribute', family: 'options', attributeId: attr.Country!, op: 'any_of', multiple: false, optionIds: [String(option.Germany)] },
      { type: 'attribute', family: 'checkbox', attributeId: attr.Newsletter!, op: 'is_set' },
      { type: 'attribute', family: 'date', attributeId: attr.Birthday!, op: 'on', date: '1990-01-02', days: 0 },
    ];
    for (const condition of conditions) assert.match(await planOf(condition), /subscriber_attribute_values_segment_idx/, condition.family);
  });

  test('text values, which it leaves out unless they look like numbers or dates, are still found by text conditions', async () => {
    await defineAttribute('City', 'textline');
    const [berlin, zip] = [people[1]!, people[2]!];
    await t.db.insert(subscriberAttributeValues).values([
      { subscriberId: berlin.id, definitionId: attr.City!, value: 'Berlin' },
      { subscriberId: zip.id, definitionId: attr.City!, value: '10115' },
    ]);
    const city = (op: string, value: string) => ({ match: 'all', conditions: [{ type: 'attribute', attribute_id: attr.City, op, value }] });
    await expectMatches(city('equals', 'berlin'), (p) => p.id === berlin.id);
    await expectMatches(city('equals', '10115'), (p) => p.id === zip.id);
    await expectMatches(city('starts_with', 'BER'), (p) => p.id === berlin.id);
  });
});
