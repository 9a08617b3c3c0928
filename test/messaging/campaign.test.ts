import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { campaignCounters, campaigns, listCampaigns, templates } from '../../src/db/schema/index.js';
import { createList } from '../factories.js';
import { atom, startTestApp, type TestApp } from '../helper.js';

let t: TestApp;
let headers: Record<string, string>;
let adminId: number;
before(async () => {
  t = await startTestApp();
  const session = await t.adminWithSession();
  headers = session.headers;
  adminId = session.admin.id;
});
after(() => t.close());

const NOT_FOUND = { message: 'Campaign not found.' };
const NO_FIGURES = { lists: [], total: 0, sent: 0, failed: 0, unique_opens: 0, unique_clicks: 0 };
const NO_SESSION = { message: 'No valid session key was provided as basic auth password.' };

function body(overrides: Record<string, unknown> = {}) {
  return {
    content: { subject: 'November news', text: '<p>Hello [FIRST NAME%%friend]</p>', footer: 'Unsubscribe: [UNSUBSCRIBEURL]' },
    format: { send_format: 'html' },
    metadata: { status: 'sent' },
    schedule: { embargo: '2026-12-01T09:00:00+01:00', requeue_interval: 60, requeue_until: '2026-12-02 09:00:00' },
    options: { from_field: 'News Desk <news@example.com>', reply_to: 'replies@example.com', user_selection: 'all' },
    ...overrides,
  };
}

async function create(overrides: Record<string, unknown> = {}, h = headers) {
  const res = await t.inject({ method: 'POST', url: '/api/v2/campaigns', headers: h, payload: body(overrides) });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

describe('POST /api/v2/campaigns', () => {
  test('creates a draft whatever status is asked; whole body', async () => {
    const res = await t.inject({ method: 'POST', url: '/api/v2/campaigns', headers, payload: body() });
    assert.equal(res.statusCode, 201);
    const c = res.json();
    assert.match(c.unique_id, /^[0-9a-f]{36}$/);
    assert.deepEqual(c, {
      id: c.id,
      unique_id: c.unique_id,
      template: null,
      message_content: {
        subject: 'November news',
        name: 'November news',
        text: '<p>Hello [FIRST NAME%%friend]</p>',
        text_message: '',
        footer: 'Unsubscribe: [UNSUBSCRIBEURL]',
        editor: null,
      },
      message_format: { html_formated: true, send_format: 'html', as_text: 0, as_html: 0, as_text_and_html: 0, as_pdf: 0, as_text_and_pdf: 0 },
      message_metadata: {
        status: 'draft',
        processed: 0,
        views: 0,
        bounce_count: 0,
        entered: atom(c.message_metadata.entered),
        sent: null,
        send_start: null,
      },
      message_schedule: {
        repeat_interval: 0,
        repeat_until: null,
        requeue_interval: 60,
        requeue_until: '2026-12-02T09:00:00+00:00',
        embargo: '2026-12-01T08:00:00+00:00',
      },
      message_options: { from_field: 'News Desk <news@example.com>', to_field: '', reply_to: 'replies@example.com', user_selection: 'all' },
      created_at: atom(c.created_at),
      updated_at: atom(c.updated_at),
    });
    const [row] = await t.db.select().from(campaigns).where(eq(campaigns.id, c.id));
    assert.equal(row?.ownerId, adminId);
  });

  test('the embargo defaults to now; a template is embedded whole', async () => {
    const [template] = await t.db
      .insert(templates)
      .values({ title: `T ${Date.now()}`, content: '<html>[CONTENT]</html>' })
      .returning();
    const c = await create({ template_id: template!.id, schedule: undefined });
    assert.deepEqual(c.template, {
      id: template!.id,
      title: template!.title,
      content: '<html>[CONTENT]</html>',
      text: null,
      list_order: 0,
      images: null,
    });
    assert.ok(Math.abs(Date.parse(c.message_schedule.embargo) - Date.now()) < 60_000);
  });

  test('bad input: each answered 422 naming the field, unknown template 409', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ content: { text: 'x' } }, 'content.subject'],
      [{ content: { subject: ' ', text: 'x' } }, 'content.subject'],
      [{ content: { subject: 's' } }, 'content.text'],
      [{ format: { send_format: 'pdf' } }, 'format.send_format'],
      [{ format: {} }, 'format.send_format'],
      [{ options: { from_field: 'not an address' } }, 'options.from_field'],
      [{ options: { from_field: 'Name <broken@>' } }, 'options.from_field'],
      [{ options: {} }, 'options.from_field'],
      [{ options: { from_field: 'a@example.com', reply_to: 'nope' } }, 'options.reply_to'],
      [{ options: { from_field: 'a@example.com', to_field: 5 } }, 'options.to_field'],
      [{ schedule: { embargo: 'next tuesday' } }, 'schedule.embargo'],
      [{ schedule: { repeat_until: '2026-13-40T00:00:00Z' } }, 'schedule.repeat_until'],
      [{ schedule: { requeue_interval: -5 } }, 'schedule.requeue_interval'],
      [{ template_id: 'one' }, 'template_id'],
      [{ content: { subject: 's', text: 'see https://example.com/lt/abcdefghijklmnop here' } }, 'content.text'],
    ];
    for (const [overrides, field] of cases) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/campaigns', headers, payload: body(overrides) });
      assert.equal(res.statusCode, 422, `${JSON.stringify(overrides)} → ${res.body}`);
      assert.ok(Object.keys(res.json().errors).includes(field), `${field} in ${res.body}`);
    }
    const pasted = await t.inject({
      method: 'POST',
      url: '/api/v2/campaigns',
      headers,
      payload: body({ content: { subject: 's', text: 'https://x.example/lt.php?id=abcdefghijklmnop' } }),
    });
    assert.deepEqual(pasted.json().errors['content.text'], [
      'You should not paste the results of a test message back into the editor. This will break the click-track statistics, and overload the server.',
    ]);
    const noTemplate = await t.inject({ method: 'POST', url: '/api/v2/campaigns', headers, payload: body({ template_id: 999999 }) });
    assert.equal(noTemplate.statusCode, 409);
    assert.deepEqual(noTemplate.json(), { message: 'Template with that id does not exists.' });
    const broken = await t.inject({
      method: 'POST',
      url: '/api/v2/campaigns',
      headers: { ...headers, 'content-type': 'application/json' },
      payload: '{"content":',
    });
    assert.equal(broken.statusCode, 400);
  });

  test('403 without a session or without the campaigns privilege', async () => {
    const none = await t.inject({ method: 'POST', url: '/api/v2/campaigns', payload: body() });
    assert.equal(none.statusCode, 403);
    assert.deepEqual(none.json(), NO_SESSION);
    const { headers: subscribersOnly } = await t.adminWithSession({ superUser: false, privileges: { subscribers: true } });
    const denied = await t.inject({ method: 'POST', url: '/api/v2/campaigns', headers: subscribersOnly, payload: body() });
    assert.equal(denied.statusCode, 403);
    assert.deepEqual(denied.json(), { message: 'You are not allowed to manage campaigns.' });
  });
});

describe('GET /api/v2/campaigns', () => {
  test("lists only the caller's campaigns, in cursor pages, filtered by subject", async () => {
    const own = await t.adminWithSession();
    const a = await create({ content: { subject: 'Alpha weekly', text: 'x' } }, own.headers);
    const b = await create({ content: { subject: 'Beta WEEKLY', text: 'y' } }, own.headers);
    const c = await create({ content: { subject: 'Gamma', text: 'z' } }, own.headers);
    await create({}, headers); // another administrator's
    const first = await t.inject({ method: 'GET', url: '/api/v2/campaigns?limit=2', headers: own.headers });
    // List items are the campaign plus the additive `figures` group (issue 12: the console's campaigns table).
    const item = (campaign: Record<string, unknown>) => ({ ...campaign, figures: NO_FIGURES });
    assert.deepEqual(first.json(), { items: [item(a), item(b)], pagination: { total: 3, limit: 2, has_more: true, next_cursor: b.id } });
    const second = await t.inject({ method: 'GET', url: `/api/v2/campaigns?limit=2&after_id=${b.id}`, headers: own.headers });
    assert.deepEqual(second.json(), { items: [item(c)], pagination: { total: 3, limit: 2, has_more: false, next_cursor: c.id } });
    const weekly = await t.inject({ method: 'GET', url: '/api/v2/campaigns?subject=weekly', headers: own.headers });
    assert.deepEqual(weekly.json(), { items: [item(a), item(b)], pagination: { total: 2, limit: 25, has_more: false, next_cursor: b.id } });
    const percent = await t.inject({ method: 'GET', url: '/api/v2/campaigns?subject=%25', headers: own.headers });
    assert.deepEqual(percent.json().items, [], 'a % in the filter is a literal');
    const none = await t.inject({ method: 'GET', url: '/api/v2/campaigns' });
    assert.equal(none.statusCode, 403);
  });

  test('filters by status; figures carry the lists and the counters the service keeps', async () => {
    const own = await t.adminWithSession();
    const draft = await create({ content: { subject: 'Still a draft', text: 'x' } }, own.headers);
    const sent = await create({ content: { subject: 'Went out', text: 'y' } }, own.headers);
    await t.db.update(campaigns).set({ status: 'sent' }).where(eq(campaigns.id, sent.id));
    const zebra = await createList(t.db, { name: 'Zebra readers' });
    const alpha = await createList(t.db, { name: 'Alpha readers' });
    await t.db.insert(listCampaigns).values([
      { campaignId: sent.id, listId: zebra.id },
      { campaignId: sent.id, listId: alpha.id },
    ]);
    await t.db
      .insert(campaignCounters)
      .values({ campaignId: sent.id, queued: 1, sent: 90, failed: 4, skipped: 5, uniqueOpens: 30, uniqueClicks: 12, opens: 70 });
    const res = await t.inject({ method: 'GET', url: '/api/v2/campaigns?status=sent', headers: own.headers });
    assert.equal(res.statusCode, 200);
    const view = (await t.inject({ method: 'GET', url: `/api/v2/campaigns/${sent.id}`, headers: own.headers })).json();
    assert.deepEqual(res.json(), {
      items: [
        {
          ...view,
          figures: {
            lists: [
              { id: alpha.id, name: 'Alpha readers' },
              { id: zebra.id, name: 'Zebra readers' },
            ],
            total: 100,
            sent: 90,
            failed: 4,
            unique_opens: 30,
            unique_clicks: 12,
          },
        },
      ],
      pagination: { total: 1, limit: 25, has_more: false, next_cursor: sent.id },
    });
    const drafts = await t.inject({ method: 'GET', url: '/api/v2/campaigns?status=draft', headers: own.headers });
    assert.deepEqual(
      drafts.json().items.map((c: { id: number }) => c.id),
      [draft.id],
    );
    const bad = await t.inject({ method: 'GET', url: '/api/v2/campaigns?status=lost', headers: own.headers });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.json().errors.status[0], /Allowed values: draft, prepared/);
  });
});

describe('GET and PUT /api/v2/campaigns/{id}', () => {
  test('GET: 404 before authentication, then 403, then the campaign', async () => {
    const c = await create();
    const missingNoAuth = await t.inject({ method: 'GET', url: '/api/v2/campaigns/999999' });
    assert.equal(missingNoAuth.statusCode, 404);
    assert.deepEqual(missingNoAuth.json(), NOT_FOUND);
    const noAuth = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${c.id}` });
    assert.equal(noAuth.statusCode, 403);
    const ok = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${c.id}`, headers });
    assert.deepEqual(ok.json(), c);
    const word = await t.inject({ method: 'GET', url: '/api/v2/campaigns/abc', headers });
    assert.equal(word.statusCode, 404);
  });

  test('PUT: 404 before authentication; replaces groups; omitted template_id clears it; status unchanged', async () => {
    const [template] = await t.db
      .insert(templates)
      .values({ title: `P ${Date.now()}`, content: '[CONTENT]' })
      .returning();
    const c = await create({ template_id: template!.id });
    const missingNoAuth = await t.inject({ method: 'PUT', url: '/api/v2/campaigns/999999', payload: { bogus: 1 } });
    assert.equal(missingNoAuth.statusCode, 404);
    assert.deepEqual(missingNoAuth.json(), NOT_FOUND);
    const noAuth = await t.inject({ method: 'PUT', url: `/api/v2/campaigns/${c.id}`, payload: body() });
    assert.equal(noAuth.statusCode, 403);
    const res = await t.inject({
      method: 'PUT',
      url: `/api/v2/campaigns/${c.id}`,
      headers,
      payload: body({
        content: { subject: 'Changed', text: 'Plain words', footer: '' },
        format: { send_format: 'text' },
        options: { from_field: 'plain@example.com' },
      }),
    });
    assert.equal(res.statusCode, 200, res.body);
    const updated = res.json();
    assert.deepEqual(updated, {
      ...c,
      template: null,
      // No name in the update (as a phpList client sends it): the name given at creation stays.
      message_content: { subject: 'Changed', name: 'November news', text: 'Plain words', text_message: '', footer: '', editor: null },
      message_format: { ...c.message_format, html_formated: false, send_format: 'text' },
      message_options: { from_field: 'plain@example.com', to_field: '', reply_to: '', user_selection: null },
      updated_at: atom(updated.updated_at),
    });
    const bad = await t.inject({ method: 'PUT', url: `/api/v2/campaigns/${c.id}`, headers, payload: body({ schedule: { embargo: 'soon' } }) });
    assert.equal(bad.statusCode, 422);
  });

  test('PUT on a sent campaign is 409', async () => {
    const c = await create();
    await t.db.update(campaigns).set({ status: 'sent' }).where(eq(campaigns.id, c.id));
    const res = await t.inject({ method: 'PUT', url: `/api/v2/campaigns/${c.id}`, headers, payload: body() });
    assert.equal(res.statusCode, 409);
    assert.deepEqual(res.json(), { message: 'A campaign that is sent cannot be edited; copy it instead.' });
  });
});

describe('DELETE and copy', () => {
  test('DELETE: authentication first, then 404; 204 and gone; a campaign being sent is 409', async () => {
    const c = await create();
    const noAuthMissing = await t.inject({ method: 'DELETE', url: '/api/v2/campaigns/999999' });
    assert.equal(noAuthMissing.statusCode, 403);
    const missing = await t.inject({ method: 'DELETE', url: '/api/v2/campaigns/999999', headers });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), NOT_FOUND);
    const list = await createList(t.db);
    await t.db.insert(listCampaigns).values({ campaignId: c.id, listId: list.id });
    const del = await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${c.id}`, headers });
    assert.equal(del.statusCode, 204);
    assert.equal(del.body, '');
    assert.equal((await t.inject({ method: 'GET', url: `/api/v2/campaigns/${c.id}`, headers })).statusCode, 404);

    const busy = await create();
    await t.db.update(campaigns).set({ status: 'inprocess' }).where(eq(campaigns.id, busy.id));
    const refused = await t.inject({ method: 'DELETE', url: `/api/v2/campaigns/${busy.id}`, headers });
    assert.equal(refused.statusCode, 409);
    assert.deepEqual(refused.json(), { message: 'The campaign is being sent; suspend it before deleting it.' });
  });

  test('copy: a new draft owned by the caller, same content, new unique id, no lists, counters reset', async () => {
    const c = await create();
    const list = await createList(t.db);
    await t.db.insert(listCampaigns).values({ campaignId: c.id, listId: list.id });
    await t.db.update(campaigns).set({ status: 'sent', views: 12, asHtml: 5 }).where(eq(campaigns.id, c.id));
    const other = await t.adminWithSession();
    const res = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${c.id}/copy`, headers: other.headers });
    assert.equal(res.statusCode, 201);
    const copy = res.json();
    assert.notEqual(copy.id, c.id);
    assert.notEqual(copy.unique_id, c.unique_id);
    assert.deepEqual(copy, {
      ...c,
      id: copy.id,
      unique_id: copy.unique_id,
      message_metadata: { ...c.message_metadata, entered: atom(copy.message_metadata.entered) },
      created_at: atom(copy.created_at),
      updated_at: atom(copy.updated_at),
    });
    const [row] = await t.db.select().from(campaigns).where(eq(campaigns.id, copy.id));
    assert.equal(row?.ownerId, other.admin.id);
    const links = await t.db.select().from(listCampaigns).where(eq(listCampaigns.campaignId, copy.id));
    assert.deepEqual(links, []);
    const missing = await t.inject({ method: 'POST', url: '/api/v2/campaigns/999999/copy', headers });
    assert.equal(missing.statusCode, 404);
    assert.deepEqual(missing.json(), NOT_FOUND);
  });
});

describe("content.editor (the console editor's document, a Mailroom extension)", () => {
  const doc = JSON.stringify({ root: { type: 'EmailLayout', data: { childrenIds: [] } } });
  const content = (editor: unknown, text = '<p>Hi</p><p>[UNSUBSCRIBE]</p>') => ({ content: { subject: 'Editor', text, editor } });

  test('kept beside the body and answered; a phpList PUT without it keeps it, marked outdated once the body changes', async () => {
    const c = await create(content({ format: 'visual', source: doc }));
    assert.deepEqual(c.message_content.editor, { format: 'visual', source: doc, outdated: false });
    const got = await t.inject({ method: 'GET', url: `/api/v2/campaigns/${c.id}`, headers });
    assert.deepEqual(got.json().message_content.editor, { format: 'visual', source: doc, outdated: false });

    // A phpList client saves the same body again (it ignores editor): nothing to note.
    const same = await t.inject({ method: 'PUT', url: `/api/v2/campaigns/${c.id}`, headers, payload: body(content(undefined)) });
    assert.equal(same.statusCode, 200, same.body);
    assert.deepEqual(same.json().message_content.editor, { format: 'visual', source: doc, outdated: false });
    // It changes the body: the document no longer produced it.
    const changed = await t.inject({
      method: 'PUT',
      url: `/api/v2/campaigns/${c.id}`,
      headers,
      payload: body(content(undefined, '<p>Edited elsewhere [UNSUBSCRIBE]</p>')),
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(changed.json().message_content.text, '<p>Edited elsewhere [UNSUBSCRIBE]</p>');
    assert.deepEqual(changed.json().message_content.editor, { format: 'visual', source: doc, outdated: true });
    // The console saves it as HTML now; null drops the document.
    const html = await t.inject({ method: 'PUT', url: `/api/v2/campaigns/${c.id}`, headers, payload: body(content({ format: 'html' })) });
    assert.deepEqual(html.json().message_content.editor, { format: 'html', source: null, outdated: false });
    const dropped = await t.inject({ method: 'PUT', url: `/api/v2/campaigns/${c.id}`, headers, payload: body(content(null)) });
    assert.equal(dropped.json().message_content.editor, null);
  });

  test('Markdown and text formats; a copy keeps the document', async () => {
    const md = await create(content({ format: 'markdown', source: '# Hi\n\n[UNSUBSCRIBE]' }));
    assert.deepEqual(md.message_content.editor, { format: 'markdown', source: '# Hi\n\n[UNSUBSCRIBE]', outdated: false });
    const copy = await t.inject({ method: 'POST', url: `/api/v2/campaigns/${md.id}/copy`, headers });
    assert.deepEqual(copy.json().message_content.editor, md.message_content.editor);
    const text = await create({ ...content({ format: 'text' }, 'Hi\n[UNSUBSCRIBEURL]'), format: { send_format: 'text' } });
    assert.deepEqual(text.message_content.editor, { format: 'text', source: null, outdated: false });
  });

  test('bad editor documents: 422 on content.editor saying what is wrong, nothing written', async () => {
    const cases: [unknown, Record<string, unknown>, string][] = [
      [{ format: 'visual' }, {}, 'The visual format needs its source.'],
      [{ format: 'markdown', source: '  ' }, {}, 'The markdown format needs its source.'],
      [{ format: 'visual', source: '{"root":' }, {}, 'The visual source is not valid JSON.'],
      [{ format: 'visual', source: '[1]' }, {}, 'The visual source is not a block document (an object with a "root" block).'],
      [{ format: 'html', source: '<p>x</p>' }, {}, 'The html format has no source of its own: its document is content.text.'],
      [{ format: 'text' }, {}, 'The text format needs format.send_format "text".'],
      [{ format: 'richtext' }, { format: { send_format: 'text' } }, 'A text-only campaign (send_format "text") is written in the text format.'],
    ];
    const before = await t.db.select().from(campaigns);
    for (const [editor, more, message] of cases) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/campaigns', headers, payload: body({ ...content(editor), ...more }) });
      assert.equal(res.statusCode, 422, `${JSON.stringify(editor)} → ${res.body}`);
      assert.deepEqual(res.json().errors['content.editor'], [message]);
    }
    for (const editor of [{ format: 'word' }, { source: 'x' }, 'visual']) {
      const res = await t.inject({ method: 'POST', url: '/api/v2/campaigns', headers, payload: body(content(editor)) });
      assert.equal(res.statusCode, 422, `${JSON.stringify(editor)} → ${res.body}`);
      assert.ok(
        Object.keys(res.json().errors).some((k) => k.startsWith('content.editor')),
        res.body,
      );
    }
    assert.equal((await t.db.select().from(campaigns)).length, before.length);
  });
});
