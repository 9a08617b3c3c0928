import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertAccessible, browserSkip, openSignedIn, screenshots, startConsoleSignedIn, type ConsoleHarness } from './browser.js';

const skip = browserSkip();

interface Definition {
  id: number;
  name: string;
  type: string;
  list_order: number | null;
  default_value: string | null;
  required: boolean;
  subscriber_editable: boolean;
  options: { id: number; name: string; list_order: number }[];
  placeholder: string | null;
}

describe('console: attribute options (required, default, editable by subscribers)', { skip }, () => {
  let h: ConsoleHarness;
  let session: { key: string; id: number };
  let headers: Record<string, string>;
  before(async () => {
    ({ harness: h, session, headers } = await startConsoleSignedIn({ loginName: 'root-admin' }));
  });
  after(async () => h?.close());

  const byName = async (name: string) => {
    const res = await h.app.inject({ method: 'GET', url: '/api/v2/attributes', headers });
    return (res.json() as { items: Definition[] }).items.find((d) => d.name === name)!;
  };

  test('each option set through the screen is stored, shown in the table, reaches the sign-up form, and edits back', async () => {
    const page = await openSignedIn(h, session, '/admin/attributes');
    await page.getByText('No attributes yet').waitFor();
    const create = async (name: string, type: string, fill: (dialog: ReturnType<typeof page.getByRole>) => Promise<unknown>) => {
      await page.getByRole('button', { name: 'New attribute' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Name').fill(name);
      await dialog.getByLabel('Type').selectOption(type);
      await fill(dialog);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await page.getByText(`“${name}” saved.`).waitFor();
    };

    await create('Nickname', 'textline', async (dialog) => {
      await dialog.getByLabel('Default value').fill('Friend');
      await dialog.getByLabel('Subscribers may change it in the preference centre').check();
    });
    await create('Plan', 'select', async (dialog) => {
      for (const option of ['Basic', 'Pro']) {
        await dialog.getByLabel('New option').fill(option);
        await dialog.getByRole('button', { name: 'Add option' }).click();
      }
      // A new option has no id yet: the default names it, and the API stores it as sent.
      await dialog.getByLabel('Default value').selectOption({ label: 'Pro' });
      await dialog.getByLabel('Required on sign-up forms').check();
    });
    await create('Topics', 'checkboxgroup', async (dialog) => {
      for (const option of ['News', 'Jobs', 'Events']) {
        await dialog.getByLabel('New option').fill(option);
        await dialog.getByRole('button', { name: 'Add option' }).click();
      }
      const group = dialog.getByRole('group', { name: 'Default value' });
      await group.getByLabel('Jobs').check();
      await group.getByLabel('Events').check();
    });
    await create('Agree', 'checkbox', (dialog) => dialog.getByLabel('Default value').selectOption({ label: 'Ticked' }));
    await create('Joined', 'date', (dialog) => dialog.getByLabel('Default value').fill('2024-02-29'));

    const plan = await byName('Plan');
    const [basic, pro] = plan.options;
    assert.deepEqual(plan, {
      id: plan.id,
      name: 'Plan',
      type: 'select',
      list_order: 2,
      default_value: 'Pro',
      required: true,
      subscriber_editable: false,
      options: [
        { id: basic!.id, name: 'Basic', list_order: 1 },
        { id: pro!.id, name: 'Pro', list_order: 2 },
      ],
      placeholder: '[PLAN]',
    });
    const nickname = await byName('Nickname');
    assert.deepEqual(nickname, {
      id: nickname.id,
      name: 'Nickname',
      type: 'textline',
      list_order: 1,
      default_value: 'Friend',
      required: false,
      subscriber_editable: true,
      options: [],
      placeholder: '[NICKNAME]',
    });
    const topics = await byName('Topics');
    const [news, jobs, events] = topics.options;
    assert.deepEqual(topics, {
      id: topics.id,
      name: 'Topics',
      type: 'checkboxgroup',
      list_order: 3,
      default_value: 'Jobs,Events',
      required: false,
      subscriber_editable: false,
      options: [
        { id: news!.id, name: 'News', list_order: 1 },
        { id: jobs!.id, name: 'Jobs', list_order: 2 },
        { id: events!.id, name: 'Events', list_order: 3 },
      ],
      placeholder: '[TOPICS]',
    });
    const agree = await byName('Agree');
    assert.deepEqual(agree, {
      id: agree.id,
      name: 'Agree',
      type: 'checkbox',
      list_order: 4,
      default_value: '1',
      required: false,
      subscriber_editable: false,
      options: [],
      placeholder: '[AGREE]',
    });
    const joined = await byName('Joined');
    assert.deepEqual(joined, {
      id: joined.id,
      name: 'Joined',
      type: 'date',
      list_order: 5,
      default_value: '2024-02-29',
      required: false,
      subscriber_editable: false,
      options: [],
      placeholder: '[JOINED]',
    });

    // The table: the options switched on as badges under the name, the default in words (option names, not ids).
    assert.deepEqual(await page.locator('thead th').allTextContents(), ['Order', 'Name', 'Type', 'Placeholder', 'Options', 'Default', 'Actions']);
    await page.getByRole('row', { name: /Joined/ }).waitFor();
    const rows = await page.locator('tbody tr').evaluateAll((trs) =>
      trs.map((tr) => {
        const cells = [...tr.querySelectorAll('td')];
        return [[...cells[1]!.querySelectorAll('.badge')].map((b) => b.textContent), cells[5]!.textContent];
      }),
    );
    assert.deepEqual(rows, [
      [['Editable by subscribers'], 'Friend'],
      [['Required'], 'Pro'],
      [[], 'Jobs, Events'],
      [[], 'Ticked'],
      [[], '2024-02-29'],
    ]);
    await assertAccessible(page, 'the attributes table with options');

    // The options reach the subscriber: a sign-up page offering the attributes marks Plan required and pre-fills the defaults.
    const list = await h.app.inject({ method: 'POST', url: '/api/v2/lists', headers, payload: { name: 'News', public: true } });
    const form = await h.app.inject({ method: 'POST', url: '/api/v2/subscribe-pages', headers, payload: { title: 'Join us', active: true } });
    for (const [name, value] of [
      ['lists', String(list.json().id)],
      ['attributes', [nickname, plan, topics, agree, joined].map((d) => d.id).join(',')],
    ]) {
      const res = await h.app.inject({ method: 'PUT', url: `/api/v2/subscribe-pages/${form.json().id}/data`, headers, payload: { name, value } });
      assert.equal(res.statusCode, 200, res.body);
    }
    const signup = await h.newPage();
    await signup.goto(`/subscribe/${form.json().id}`);
    assert.equal(await signup.getByLabel('Nickname').inputValue(), 'Friend');
    const planField = signup.getByLabel('Plan (required)');
    assert.equal(await planField.getAttribute('aria-required'), 'true');
    assert.equal(await planField.inputValue(), String(pro!.id));
    assert.deepEqual(
      await signup
        .getByRole('group', { name: 'Topics' })
        .getByRole('checkbox')
        .evaluateAll((boxes) => boxes.map((b) => (b as unknown as { checked: boolean }).checked)),
      [false, true, true],
    );
    assert.equal(await signup.getByRole('checkbox', { name: 'Agree' }).isChecked(), true);
    assert.equal(await signup.getByLabel('Joined').inputValue(), '2024-02-29');
    await signup.context().close();

    // Edited back: not required, no default, not editable.
    await page.getByRole('button', { name: 'Edit Plan' }).click();
    let dialog = page.getByRole('dialog');
    assert.equal(await dialog.getByLabel('Required on sign-up forms').isChecked(), true);
    await dialog.getByLabel('Required on sign-up forms').uncheck();
    await dialog.getByLabel('Default value').selectOption({ label: 'No default' });
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('“Plan” saved.').waitFor();
    assert.deepEqual(await byName('Plan'), { ...plan, default_value: null, required: false });

    await page.getByRole('button', { name: 'Edit Nickname' }).click();
    dialog = page.getByRole('dialog');
    assert.equal(await dialog.getByLabel('Default value').inputValue(), 'Friend');
    await dialog.getByLabel('Default value').fill('');
    await dialog.getByLabel('Subscribers may change it in the preference centre').uncheck();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.getByText('“Nickname” saved.').waitFor();
    assert.deepEqual(await byName('Nickname'), { ...nickname, default_value: null, subscriber_editable: false });
    await page.getByRole('row', { name: /Plan/ }).filter({ hasNotText: 'Required' }).waitFor();
  });

  test('a stored default the control cannot show is offered as it is and kept when saving unchanged; one by id shows its option', async () => {
    // The API stores defaults as given (phpList): a checkbox defaulting to a country, a select by option id, a
    // checkboxgroup naming an option that is not there.
    const define = async (payload: Record<string, unknown>) => {
      const res = await h.app.inject({ method: 'POST', url: '/api/v2/attributes', headers, payload });
      assert.equal(res.statusCode, 201, res.body);
      return res.json() as Definition;
    };
    const consent = await define({ name: 'Consent', type: 'checkbox', default_value: 'United States' });
    const size = await define({ name: 'Size', type: 'select', options: [{ name: 'Small' }, { name: 'Large' }] });
    const large = size.options[1]!;
    const put = await h.app.inject({
      method: 'PUT',
      url: `/api/v2/attributes/${size.id}`,
      headers,
      payload: { name: 'Size', type: 'select', default_value: String(large.id) },
    });
    assert.equal(put.statusCode, 200, put.body);
    const days = await define({ name: 'Days', type: 'checkboxgroup', options: [{ name: 'Mon' }, { name: 'Tue' }], default_value: 'Sun,Tue' });

    const page = await openSignedIn(h, session, '/admin/attributes');
    // The dialog closes once everything is written; the notice alone may still be the previous save's of the same name.
    const save = async (name: string) => {
      await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
      await page.getByRole('dialog').waitFor({ state: 'hidden' });
      await page.getByText(`“${name}” saved.`).waitFor();
    };
    // Shown in the table as stored where it names no option, by the option's name where it names one by id.
    const defaultCell = (name: string) =>
      page
        .locator('tbody tr')
        .filter({ has: page.getByRole('button', { name: `Edit ${name}` }) })
        .locator('td')
        .nth(5);
    assert.equal(await defaultCell('Consent').textContent(), 'United States');
    assert.equal(await defaultCell('Size').textContent(), 'Large');
    assert.equal(await defaultCell('Days').textContent(), 'Sun, Tue');

    await page.getByRole('button', { name: 'Edit Consent' }).click();
    let dialog = page.getByRole('dialog');
    assert.equal(await dialog.getByLabel('Default value').locator('option:checked').textContent(), 'Keep “United States” (as stored)');
    await dialog.getByLabel('Required on sign-up forms').check();
    await save('Consent');
    assert.deepEqual(await byName('Consent'), { ...consent, required: true });

    await page.getByRole('button', { name: 'Edit Size' }).click();
    dialog = page.getByRole('dialog');
    assert.equal(await dialog.getByLabel('Default value').locator('option:checked').textContent(), 'Large');
    await save('Size');
    // The console sends an option by its name.
    assert.deepEqual(await byName('Size'), { ...size, default_value: 'Large' });

    await page.getByRole('button', { name: 'Edit Days' }).click();
    dialog = page.getByRole('dialog');
    let group = dialog.getByRole('group', { name: 'Default value' });
    assert.equal(await group.getByLabel('Keep “Sun,Tue” (as stored)').isChecked(), true);
    assert.deepEqual(await group.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => (b as unknown as { checked: boolean }).checked)), [
      false,
      false,
      true,
    ]);
    await save('Days');
    assert.deepEqual(await byName('Days'), days);

    // A name with a comma cannot round-trip in a checkboxgroup's comma-separated default: refused at the field.
    await page.getByRole('button', { name: 'Edit Days' }).click();
    dialog = page.getByRole('dialog');
    await dialog.getByLabel('New option').fill('Sat, Sun');
    await dialog.getByRole('button', { name: 'Add option' }).click();
    group = dialog.getByRole('group', { name: 'Default value' });
    await group.getByLabel('Sat, Sun').check();
    assert.equal(await group.getByLabel('Keep “Sun,Tue” (as stored)').isChecked(), false);
    assert.equal(
      await group.getByRole('alert').textContent(),
      "“Sat, Sun” cannot be part of the default: a checkboxgroup's default lists option names separated by commas. Rename the option without a comma, or leave it unticked.",
    );
    await assertAccessible(page, 'the attribute dialog refusing a default with a comma');
    await dialog.getByRole('button', { name: 'Save' }).click();
    assert.equal(await dialog.isVisible(), true);
    assert.deepEqual(await byName('Days'), days);
    await group.getByLabel('Sat, Sun').uncheck();
    await group.getByLabel('Mon').check();
    await save('Days');
    const saved = await byName('Days');
    assert.deepEqual(saved, {
      ...days,
      default_value: 'Mon',
      options: [...days.options, { id: saved.options[2]!.id, name: 'Sat, Sun', list_order: 3 }],
    });
  });

  test('screenshots and accessibility: the attributes table and the options in the dialog', async () => {
    // Badges in the pictures: Plan required and editable again.
    const plan = await byName('Plan');
    const put = await h.app.inject({
      method: 'PUT',
      url: `/api/v2/attributes/${plan.id}`,
      headers,
      payload: { name: 'Plan', type: 'select', required: true, subscriber_editable: true },
    });
    assert.equal(put.statusCode, 200, put.body);
    await screenshots(h, session, 'attribute-settings-table', '/admin/attributes', (page) => page.getByRole('row', { name: /Joined/ }).waitFor());
    await screenshots(h, session, 'attribute-settings-dialog', '/admin/attributes', async (page) => {
      await page.getByRole('button', { name: 'Edit Topics' }).click();
      await page.getByRole('dialog').getByRole('group', { name: 'Default value' }).waitFor();
    });
    // A default stored as given that no control value stands for: offered to keep as it is.
    await screenshots(h, session, 'attribute-settings-kept-default', '/admin/attributes', async (page) => {
      await page.getByRole('button', { name: 'Edit Consent' }).click();
      await page.getByRole('dialog').getByLabel('Default value').locator('option:checked', { hasText: 'Keep' }).waitFor({ state: 'attached' });
    });
  });
});
