import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { useApi } from '../api/useApi';
import { Link, navigate, useLocation } from '../router';
import { AddressSelect, DateTime, PagedTable, useAddressCursor, useAddressFilter } from '../ui/data';
import { FormDialog } from '../ui/FormDialog';
import { Empty, PageHeader, SubscriberStatus, useAction } from '../ui/kit';
import type { SubscriberFilter } from '../api/types';
import { AttributeColumns, useAttributeValues, useShownAttributes } from './subscribers/AttributeColumns';
import { BulkActions } from './subscribers/BulkActions';
import { useSelection } from './subscribers/selection';

const PAGE = 50;
type Flag = 'true' | 'false' | undefined;
const flag = (value: string | null): Flag => (value === 'true' || value === 'false' ? value : undefined);
const CONFIRMED_CHOICES = [
  { value: 'true', label: 'Confirmed' },
  { value: 'false', label: 'Unconfirmed' },
];
const BLACKLISTED_CHOICES = [
  { value: 'true', label: 'Blacklisted' },
  { value: 'false', label: 'Not blacklisted' },
];

const MATCH_CHOICES = [{ value: 'equals', label: 'is' }];

/**
 * Search by e-mail substring (trigram index) or attribute value, filters and cursor paging, all kept in the address.
 * Rows can be ticked (shift-click for a range, the heading's box for the page) or the whole match selected, for the
 * bulk actions above the table (subscribers/BulkActions.tsx); chosen attribute columns are remembered in the browser.
 */
export default function Subscribers() {
  const loc = useLocation();
  const confirmed = flag(loc.query.get('confirmed'));
  const blacklisted = flag(loc.query.get('blacklisted'));
  const listId = Number(loc.query.get('list')) || 0;
  const attributeId = Number(loc.query.get('attr')) || 0;
  const match = loc.query.get('match') === 'equals' ? 'equals' : undefined;
  const after = useAddressCursor();
  // Typing searches after a short pause; the address follows, so a search can be bookmarked.
  const [q, search, setSearch] = useAddressFilter('q');
  const [value, valueTyped, setValueTyped] = useAddressFilter('value');
  const [creating, setCreating] = useState(false);

  // One filter for the page and for bulk actions over "all matching".
  const filter: SubscriberFilter = {
    ...(q ? { find_column: 'email', find_value: q } : {}),
    ...(confirmed ? { is_confirmed: confirmed } : {}),
    ...(blacklisted ? { is_blacklisted: blacklisted } : {}),
    ...(listId ? { list_id: listId } : {}),
    ...(attributeId && value ? { attribute_id: attributeId, attribute_value: value, ...(match ? { attribute_match: match } : {}) } : {}),
  };
  const filterKey = JSON.stringify(filter);
  const page = useApi(
    () => unwrap(api.GET('/api/v2/subscribers', { params: { query: { after_id: after, limit: PAGE, ...filter } } })),
    [filterKey, after],
  );
  const selection = useSelection(filterKey);
  // The list filter offers the first 100 lists; a list further on still works from the address.
  const lists = useApi(() => unwrap(api.GET('/api/v2/lists', { params: { query: { limit: 100 } } })).then((p) => p.items), []);
  const attributes = useApi(() => unwrap(api.GET('/api/v2/attributes', { params: { query: { limit: 100 } } })).then((p) => p.items), []);
  const [shown, setShown] = useShownAttributes();
  const columns = (attributes.data ?? []).filter((a) => shown.includes(a.id));
  const values = useAttributeValues(
    page.data?.items.map((s) => s.id) ?? [],
    columns.map((c) => c.id),
  );
  const filtered = Object.keys(filter).length > 0;
  const pageIds = page.data?.items.map((s) => s.id) ?? [];
  const allOnPage = pageIds.length > 0 && pageIds.every((id) => selection.ids.has(id));

  const listChoices = [
    ...(listId && !lists.data?.some((l) => l.id === listId) ? [{ value: String(listId), label: `List #${listId}` }] : []),
    ...(lists.data ?? []).map((l) => ({ value: String(l.id), label: l.name })),
  ];
  const attributeChoices = (attributes.data ?? []).map((a) => ({ value: String(a.id), label: a.name }));
  return (
    <>
      <PageHeader title="Subscribers">
        <AttributeColumns attributes={attributes.data ?? []} shown={shown} setShown={setShown} />
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          New subscriber
        </button>
      </PageHeader>
      <form className="row card filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search by e-mail
          <input type="search" value={search} placeholder="part of an address" onChange={(e) => setSearch(e.target.value)} />
        </label>
        <AddressSelect label="Confirmed" name="confirmed" value={confirmed ?? ''} anyLabel="Any" options={CONFIRMED_CHOICES} />
        <AddressSelect label="Blacklisted" name="blacklisted" value={blacklisted ?? ''} anyLabel="Any" options={BLACKLISTED_CHOICES} />
        <AddressSelect label="List" name="list" value={listId ? String(listId) : ''} anyLabel="Any" options={listChoices} />
        <AddressSelect label="Attribute" name="attr" value={attributeId ? String(attributeId) : ''} anyLabel="None" options={attributeChoices} />
        {attributeId > 0 && (
          <>
            <AddressSelect label="Match" name="match" value={match ?? ''} anyLabel="contains" options={MATCH_CHOICES} replace />
            <label>
              Value
              <input type="search" value={valueTyped} placeholder="e.g. a name" onChange={(e) => setValueTyped(e.target.value)} />
            </label>
          </>
        )}
      </form>
      <div className="spacer" />
      <BulkActions selection={selection} filter={filter} matching={page.data?.pagination.total ?? 0} pageIds={pageIds} onChanged={page.reload} />
      <PagedTable
        state={page}
        after={after}
        busy={page.status === 'loading'}
        columns={[
          {
            label: 'E-mail',
            head: (
              <input
                type="checkbox"
                className="row-select"
                aria-label="Select all on this page"
                checked={allOnPage || selection.everyMatch}
                onChange={(e) => selection.setPage(pageIds, e.target.checked)}
              />
            ),
          },
          { label: 'Status' },
          ...columns.map((c) => ({ label: c.name, hideNarrow: true })),
          { label: 'Lists', hideNarrow: true },
          { label: 'Created', hideNarrow: true },
        ]}
        empty={
          <Empty title={filtered ? 'Nobody matches' : 'No subscribers yet'}>
            <p>{filtered ? 'Try another search or filter.' : 'Add subscribers or import a CSV file.'}</p>
          </Empty>
        }
        row={(s) => (
          <tr key={s.id} className={selection.everyMatch || selection.ids.has(s.id) ? 'selected' : undefined}>
            <td className="break">
              <input
                type="checkbox"
                className="row-select"
                aria-label={`Select ${s.email}`}
                checked={selection.everyMatch || selection.ids.has(s.id)}
                onChange={() => undefined}
                onClick={(e) => selection.toggle(s.id, e, pageIds)}
              />
              <Link to={`subscribers/${s.id}`}>{s.email}</Link>
            </td>
            <td>
              <SubscriberStatus confirmed={s.confirmed} blacklisted={s.blacklisted} />
            </td>
            {columns.map((c) => (
              <td key={c.id} className="hide-narrow">
                {values.get(`${s.id}:${c.id}`) ?? '—'}
              </td>
            ))}
            <td className="hide-narrow muted">{s.subscribed_lists.map((l) => l.name).join(', ') || '—'}</td>
            <td className="hide-narrow">
              <DateTime value={s.created_at} />
            </td>
          </tr>
        )}
      />
      <CreateSubscriber open={creating} onClose={() => setCreating(false)} />
    </>
  );
}

function CreateSubscriber({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [email, setEmail] = useState('');
  const [requestConfirmation, setRequestConfirmation] = useState(false);
  // The mail format starts at the service's setting (SUBSCRIBER_HTML_DEFAULT) until the administrator changes it.
  const defaults = useApi(() => unwrap(api.GET('/api/v2/subscribers/defaults')), []);
  const [htmlChoice, setHtmlChoice] = useState<boolean | null>(null);
  const htmlEmail = htmlChoice ?? defaults.data?.html_email ?? true;
  const action = useAction();
  const submit = () =>
    action.run(async () => {
      const s = await unwrap(api.POST('/api/v2/subscribers', { body: { email, request_confirmation: requestConfirmation, html_email: htmlEmail } }));
      navigate(`subscribers/${s.id}`);
    });
  return (
    <FormDialog title="New subscriber" open={open} onClose={onClose} onSubmit={submit} submitLabel="Create" busy={action.busy} error={action.error}>
      <label>
        E-mail
        <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </label>
      <label className="inline">
        <input type="checkbox" checked={requestConfirmation} onChange={(e) => setRequestConfirmation(e.target.checked)} /> Send a confirmation mail
        (otherwise confirmed now)
      </label>
      <label className="inline">
        <input type="checkbox" checked={htmlEmail} onChange={(e) => setHtmlChoice(e.target.checked)} /> Prefers HTML mail (otherwise the text version
        only)
      </label>
    </FormDialog>
  );
}
