import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import type { ApiError } from '../api/client';
import { api, unwrap } from '../api/client';
import type { AttributeDefinition } from '../api/types';
import { useApi } from '../api/useApi';
import { Link, navigate, useLocation } from '../router';
import { ErrorState, Loading, Notice, PageHeader, SubscriberStatus, useAction } from '../ui/kit';

/*
 * The segment builder: groups of conditions with the controls that fit each condition and attribute type, the live
 * count as the definition changes, a sample of who matches, and save. The definition is kept exactly in the API's
 * JSON shape (docs/api.md "Segments"), so what is built here is what is sent.
 */

type Json = Record<string, unknown>;
interface Group extends Json {
  type?: 'group';
  match: 'all' | 'any';
  conditions: Json[];
}
interface Vocabulary {
  attributes: AttributeDefinition[];
  lists: { id: number; name: string }[];
  campaigns: { id: number; subject: string }[];
}

const KINDS: [string, string][] = [
  ['attribute', 'Attribute'],
  ['email', 'E-mail address'],
  ['confirmed', 'Confirmed'],
  ['blacklisted', 'Blacklisted'],
  ['html_email', 'Wants HTML mail'],
  ['bounce_count', 'Bounce count'],
  ['subscribed', 'Date subscribed'],
  ['list', 'Lists'],
  ['engagement', 'Sent, opened or clicked'],
  ['clicked_link', 'Clicked a link'],
  ['bounced', 'Bounced'],
];

const OPS: Record<string, [string, string][]> = {
  text: [
    ['equals', 'is'],
    ['not_equals', 'is not'],
    ['contains', 'contains'],
    ['not_contains', 'does not contain'],
    ['starts_with', 'starts with'],
    ['is_empty', 'is empty'],
    ['is_not_empty', 'is not empty'],
  ],
  date: [
    ['before', 'is before'],
    ['after', 'is after'],
    ['on', 'is on'],
    ['within_last_days', 'is within the last … days'],
    ['is_empty', 'is empty'],
    ['is_not_empty', 'is not empty'],
  ],
  checkbox: [
    ['is_set', 'is ticked'],
    ['is_not_set', 'is not ticked'],
  ],
  options: [
    ['any_of', 'is any of'],
    ['none_of', 'is none of'],
    ['is_empty', 'is empty'],
    ['is_not_empty', 'is not empty'],
  ],
  checkboxgroup: [
    ['any_of', 'has any of'],
    ['all_of', 'has all of'],
    ['none_of', 'has none of'],
    ['is_empty', 'is empty'],
    ['is_not_empty', 'is not empty'],
  ],
};

function familyOf(type: string | null | undefined): keyof typeof OPS {
  const t = (type ?? 'textline').toLowerCase();
  if (t === 'date') return 'date';
  if (t === 'checkbox') return 'checkbox';
  if (t === 'checkboxgroup') return 'checkboxgroup';
  if (t === 'select' || t === 'radio') return 'options';
  return 'text';
}

/** A new condition of a kind, with the first sensible operator and value. */
function fresh(kind: string, vocabulary: Vocabulary): Json {
  switch (kind) {
    case 'attribute': {
      const first = vocabulary.attributes[0];
      return { type: 'attribute', attribute_id: first?.id ?? 0, op: OPS[familyOf(first?.type)]![0]![0], value: '' };
    }
    case 'email':
      return { type: 'email', op: 'domain_is', value: '' };
    case 'confirmed':
    case 'blacklisted':
    case 'html_email':
      return { type: kind, value: true };
    case 'bounce_count':
      return { type: kind, op: 'gte', value: 1 };
    case 'subscribed':
      return { type: kind, op: 'within_last_days', value: 30 };
    case 'list':
      return { type: kind, op: 'member_of', list_ids: vocabulary.lists[0] ? [vocabulary.lists[0].id] : [] };
    case 'engagement':
      // Ever, unless a number of days is typed (issue 25: "did not open" used to mean "in the last 90 days" unnoticed).
      return { type: kind, action: 'opened' };
    case 'clicked_link':
      return { type: kind, url: 'https://' };
    default:
      return { type: kind };
  }
}

const EMPTY: Group = { match: 'all', conditions: [] };

export default function SegmentEditor({ id }: { id: number | null }) {
  const vocabulary = useApi(async (): Promise<Vocabulary> => {
    const [attributes, lists, campaigns] = await Promise.all([
      unwrap(api.GET('/api/v2/attributes', { params: { query: { limit: 100 } } })).then((p) => p.items),
      unwrap(api.GET('/api/v2/lists', { params: { query: { limit: 100 } } })).then((p) => p.items.map((l) => ({ id: l.id, name: l.name }))),
      unwrap(api.GET('/api/v2/campaigns', { params: { query: { limit: 100 } } })).then((p) =>
        p.items.map((c) => ({ id: c.id, subject: c.message_content.subject })),
      ),
    ]);
    return { attributes, lists, campaigns };
  }, []);
  const saved = useApi(
    async () => (id === null ? null : unwrap(api.GET('/api/v2/segments/{segmentId}', { params: { path: { segmentId: id } } }))),
    [id],
  );

  if (vocabulary.status === 'error') return <ErrorState error={vocabulary.error} retry={vocabulary.reload} />;
  if (saved.status === 'error') return <ErrorState error={saved.error} retry={saved.reload} />;
  if (!vocabulary.data || saved.status === 'loading') return <Loading />;
  return <Builder key={id ?? 'new'} id={id} vocabulary={vocabulary.data} initial={saved.data ?? null} />;
}

function Builder({
  id,
  vocabulary,
  initial,
}: {
  id: number | null;
  vocabulary: Vocabulary;
  initial: { name: string; description: string | null; definition: unknown } | null;
}) {
  const [name, setName] = useState(initial?.name ?? '');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [definition, setDefinition] = useState<Group>((initial?.definition as Group | undefined) ?? EMPTY);
  // A new segment's page moves to its own address once saved; the notice comes along in the query.
  const justCreated = useLocation().query.get('created') === '1';
  const [notice, setNotice] = useState<string | null>(justCreated && initial ? `${initial.name} saved.` : null);
  const action = useAction();
  const preview = usePreview(definition);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(null);
    const body = { name, description: description || null, definition };
    let savedId = id;
    const ok = await action.run(async () => {
      const result =
        id === null
          ? await unwrap(api.POST('/api/v2/segments', { body }))
          : await unwrap(api.PUT('/api/v2/segments/{segmentId}', { params: { path: { segmentId: id } }, body }));
      savedId = result.id;
    });
    if (!ok) return;
    if (id === null && savedId !== null) navigate(`segments/${savedId}?created=1`, { replace: true });
    else setNotice(`${name.trim()} saved.`);
  };

  return (
    <>
      <PageHeader title={id === null ? 'New segment' : name || 'Segment'} back={{ to: 'segments', label: 'Segments' }} />
      {notice && <Notice kind="success">{notice}</Notice>}
      <form className="stack" onSubmit={save}>
        <section className="card stack">
          <div className="row">
            <label>
              Name
              <input required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
            </label>
            <label className="grow">
              Description
              <input value={description} onChange={(e) => setDescription(e.target.value)} />
            </label>
          </div>
        </section>
        <section className="card stack" aria-labelledby="conditions-title">
          <h2 id="conditions-title">Who matches</h2>
          <GroupEditor group={definition} vocabulary={vocabulary} onChange={setDefinition} depth={1} label="Top group" />
        </section>
        <section className="card stack" aria-labelledby="preview-title">
          <h2 id="preview-title">Matching now</h2>
          <Preview state={preview} />
        </section>
        {action.error && <Notice kind="error">{action.error}</Notice>}
        <div>
          <button type="submit" className="button primary" disabled={action.busy}>
            {action.busy ? 'Saving…' : 'Save segment'}
          </button>
        </div>
      </form>
    </>
  );
}

function GroupEditor({
  group,
  vocabulary,
  onChange,
  onRemove,
  depth,
  label,
}: {
  group: Group;
  vocabulary: Vocabulary;
  onChange: (group: Group) => void;
  onRemove?: () => void;
  depth: number;
  label: string;
}) {
  const [adding, setAdding] = useState('attribute');
  const set = (i: number, condition: Json) => onChange({ ...group, conditions: group.conditions.map((c, j) => (j === i ? condition : c)) });
  const remove = (i: number) => onChange({ ...group, conditions: group.conditions.filter((_, j) => j !== i) });
  return (
    <fieldset className="segment-group stack">
      <legend className="visually-hidden">{label}</legend>
      <div className="row">
        <label>
          Match
          <select value={group.match} onChange={(e) => onChange({ ...group, match: e.target.value as Group['match'] })}>
            <option value="all">all of these</option>
            <option value="any">any of these</option>
          </select>
        </label>
        {onRemove && (
          <button type="button" className="button subtle" onClick={onRemove}>
            Remove group
          </button>
        )}
      </div>
      {group.conditions.length === 0 && (
        <p className="muted">{group.match === 'all' ? 'No conditions: everyone matches.' : 'No conditions: no one matches.'}</p>
      )}
      <ol className="plain stack">
        {group.conditions.map((condition, i) => (
          <li key={i}>
            {condition.type === 'group' ? (
              <GroupEditor
                group={condition as Group}
                vocabulary={vocabulary}
                onChange={(g) => set(i, g)}
                onRemove={() => remove(i)}
                depth={depth + 1}
                label={`${label}, group ${i + 1}`}
              />
            ) : (
              <ConditionEditor condition={condition} vocabulary={vocabulary} onChange={(c) => set(i, c)} onRemove={() => remove(i)} number={i + 1} />
            )}
          </li>
        ))}
      </ol>
      <div className="row">
        <label>
          New condition
          <select value={adding} onChange={(e) => setAdding(e.target.value)}>
            {KINDS.map(([value, text]) => (
              <option key={value} value={value}>
                {text}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="button" onClick={() => onChange({ ...group, conditions: [...group.conditions, fresh(adding, vocabulary)] })}>
          Add condition
        </button>
        {depth < 5 && (
          <button
            type="button"
            className="button subtle"
            onClick={() =>
              onChange({
                ...group,
                conditions: [...group.conditions, { type: 'group', match: group.match === 'all' ? 'any' : 'all', conditions: [] }],
              })
            }
          >
            Add group
          </button>
        )}
      </div>
    </fieldset>
  );
}

function ConditionEditor({
  condition,
  vocabulary,
  onChange,
  onRemove,
  number,
}: {
  condition: Json;
  vocabulary: Vocabulary;
  onChange: (c: Json) => void;
  onRemove: () => void;
  number: number;
}) {
  const kind = String(condition.type);
  const title = KINDS.find(([k]) => k === kind)?.[1] ?? kind;
  const patch = (changes: Json) => onChange({ ...condition, ...changes });
  const select = (labelText: string, value: unknown, options: [string | number, string][], onPick: (v: string) => void) => (
    <label>
      {labelText}
      <select value={String(value ?? '')} onChange={(e) => onPick(e.target.value)}>
        {options.map(([v, text]) => (
          <option key={String(v)} value={String(v)}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  const days = (field: string, labelText = 'Days') => (
    <label>
      {labelText}
      <input
        type="number"
        min={1}
        max={36500}
        value={Number(condition[field] ?? '') || ''}
        onChange={(e) => patch({ [field]: e.target.value ? Number(e.target.value) : null })}
      />
    </label>
  );
  const campaign = () =>
    select(
      'Campaign',
      condition.campaign_id ?? '',
      [['', 'any campaign'], ...vocabulary.campaigns.map((c): [number, string] => [c.id, c.subject || `Campaign ${c.id}`])],
      (v) => patch({ campaign_id: v ? Number(v) : null }),
    );

  let fields: ReactNode = null;
  if (kind === 'attribute') {
    const attribute = vocabulary.attributes.find((a) => a.id === condition.attribute_id);
    const family = familyOf(attribute?.type);
    const op = String(condition.op);
    const needsValue = !['is_empty', 'is_not_empty', 'is_set', 'is_not_set'].includes(op);
    fields = (
      <>
        {select(
          'Attribute',
          condition.attribute_id,
          vocabulary.attributes.map((a) => [a.id, a.name]),
          (v) => {
            const next = vocabulary.attributes.find((a) => a.id === Number(v));
            onChange({ type: 'attribute', attribute_id: Number(v), op: OPS[familyOf(next?.type)]![0]![0], value: '' });
          },
        )}
        {select('Operator', op, OPS[family]!, (v) =>
          patch({ op: v, value: v === 'within_last_days' ? 30 : family === 'options' || family === 'checkboxgroup' ? [] : '' }),
        )}
        {needsValue &&
          (family === 'options' || family === 'checkboxgroup' ? (
            <fieldset className="inline">
              <legend>Options</legend>
              {(attribute?.options ?? []).map((o) => {
                const chosen = Array.isArray(condition.value) ? (condition.value as number[]) : [];
                return (
                  <label key={o.id} className="inline">
                    <input
                      type="checkbox"
                      checked={chosen.includes(o.id)}
                      onChange={(e) => patch({ value: e.target.checked ? [...chosen, o.id] : chosen.filter((x) => x !== o.id) })}
                    />
                    {o.name}
                  </label>
                );
              })}
            </fieldset>
          ) : op === 'within_last_days' ? (
            days('value')
          ) : (
            <label>
              Value
              <input
                type={family === 'date' ? 'date' : 'text'}
                value={String(condition.value ?? '')}
                onChange={(e) => patch({ value: e.target.value })}
              />
            </label>
          ))}
      </>
    );
  } else if (kind === 'email') {
    fields = (
      <>
        {select(
          'Operator',
          condition.op,
          [
            ['domain_is', 'domain is'],
            ['domain_is_not', 'domain is not'],
            ['contains', 'contains'],
            ['not_contains', 'does not contain'],
            ['equals', 'is'],
          ],
          (v) => patch({ op: v }),
        )}
        <label>
          {String(condition.op).startsWith('domain') ? 'Domain' : 'Text'}
          <input value={String(condition.value ?? '')} onChange={(e) => patch({ value: e.target.value })} />
        </label>
      </>
    );
  } else if (kind === 'confirmed' || kind === 'blacklisted' || kind === 'html_email') {
    fields = select(
      'Is',
      condition.value ? 'yes' : 'no',
      [
        ['yes', 'yes'],
        ['no', 'no'],
      ],
      (v) => patch({ value: v === 'yes' }),
    );
  } else if (kind === 'bounce_count') {
    fields = (
      <>
        {select(
          'Operator',
          condition.op,
          [
            ['gte', 'at least'],
            ['gt', 'more than'],
            ['eq', 'exactly'],
            ['ne', 'not'],
            ['lt', 'less than'],
            ['lte', 'at most'],
          ],
          (v) => patch({ op: v }),
        )}
        <label>
          Bounces
          <input type="number" min={0} value={Number(condition.value ?? 0)} onChange={(e) => patch({ value: Number(e.target.value) })} />
        </label>
      </>
    );
  } else if (kind === 'subscribed') {
    fields = (
      <>
        {select(
          'To',
          condition.list_id ?? '',
          [['', 'any list (account created)'], ...vocabulary.lists.map((l): [number, string] => [l.id, l.name])],
          (v) => patch({ list_id: v ? Number(v) : null }),
        )}
        {select(
          'When',
          condition.op,
          [
            ['within_last_days', 'within the last … days'],
            ['before', 'before'],
            ['after', 'after'],
          ],
          (v) => patch({ op: v, value: v === 'within_last_days' ? 30 : new Date().toISOString().slice(0, 10) }),
        )}
        {condition.op === 'within_last_days' ? (
          days('value')
        ) : (
          <label>
            Date
            <input type="date" value={String(condition.value ?? '')} onChange={(e) => patch({ value: e.target.value })} />
          </label>
        )}
      </>
    );
  } else if (kind === 'list') {
    const chosen = Array.isArray(condition.list_ids) ? (condition.list_ids as number[]) : [];
    fields = (
      <>
        {select(
          'Operator',
          condition.op,
          [
            ['member_of', 'is on any of'],
            ['not_member_of', 'is on none of'],
          ],
          (v) => patch({ op: v }),
        )}
        <fieldset className="inline">
          <legend>Lists</legend>
          {vocabulary.lists.map((l) => (
            <label key={l.id} className="inline">
              <input
                type="checkbox"
                checked={chosen.includes(l.id)}
                onChange={(e) => patch({ list_ids: e.target.checked ? [...chosen, l.id] : chosen.filter((x) => x !== l.id) })}
              />
              {l.name}
            </label>
          ))}
        </fieldset>
      </>
    );
  } else if (kind === 'engagement' || kind === 'clicked_link' || kind === 'bounced') {
    fields = (
      <>
        {select(
          'Did',
          condition.negate ? 'no' : 'yes',
          [
            ['yes', 'did'],
            ['no', 'did not'],
          ],
          (v) => patch({ negate: v === 'no' }),
        )}
        {kind === 'engagement' &&
          select(
            'Action',
            condition.action,
            [
              ['opened', 'open'],
              ['clicked', 'click'],
              ['sent', 'get sent'],
            ],
            (v) => patch({ action: v }),
          )}
        {kind === 'clicked_link' && (
          <label>
            Link
            <input type="url" value={String(condition.url ?? '')} onChange={(e) => patch({ url: e.target.value })} />
          </label>
        )}
        {kind !== 'bounced' && campaign()}
        {days('within_last_days', 'Within the last … days (empty: ever)')}
      </>
    );
  }

  return (
    <div className="segment-condition">
      <div className="row">
        <strong>
          {number}. {title}
        </strong>
        <button type="button" className="button subtle" onClick={onRemove} aria-label={`Remove condition ${number} (${title})`}>
          Remove
        </button>
      </div>
      <div className="row">{fields}</div>
    </div>
  );
}

type PreviewState =
  | { status: 'loading' }
  | { status: 'invalid'; errors: Record<string, string[]> }
  | { status: 'error'; error: ApiError }
  | { status: 'ready'; count: number; sendable: number; sample: { id: number; email: string; confirmed: boolean; blacklisted: boolean }[] };

/**
 * Count and sample of an unsaved definition, asked again 400 ms after the last change. A newer change aborts the
 * requests of the older one: a count no one will see is not left running (on a big list it costs seconds of the
 * database; issue 23).
 */
function usePreview(definition: Group): PreviewState {
  const [state, setState] = useState<PreviewState>({ status: 'loading' });
  const text = JSON.stringify(definition);
  useEffect(() => {
    let live = true;
    const abort = new AbortController();
    setState({ status: 'loading' });
    const timer = setTimeout(() => {
      const body = JSON.parse(text) as Group;
      const { signal } = abort;
      Promise.all([
        unwrap(api.POST('/api/v2/segments/count', { body: { definition: body }, signal })),
        unwrap(api.POST('/api/v2/segments/subscribers', { body: { definition: body, limit: 10 }, signal })),
      ]).then(
        ([count, page]) => live && setState({ status: 'ready', count: count.count, sendable: count.sendable, sample: page.items }),
        (err: ApiError) => {
          if (!live) return;
          if (err.status === 422 && Object.keys(err.fields).length > 0) setState({ status: 'invalid', errors: err.fields });
          else setState({ status: 'error', error: err });
        },
      );
    }, 400);
    return () => {
      live = false;
      clearTimeout(timer);
      abort.abort();
    };
  }, [text]);
  return state;
}

function Preview({ state }: { state: PreviewState }) {
  if (state.status === 'error') return <ErrorState error={state.error} />;
  return (
    <div className="stack">
      <p aria-live="polite" data-testid="segment-count" className="stat-value">
        {state.status === 'loading'
          ? 'Counting…'
          : state.status === 'invalid'
            ? 'Fix the conditions to count'
            : `${state.count.toLocaleString()} ${state.count === 1 ? 'subscriber matches' : 'subscribers match'}`}
      </p>
      {state.status === 'ready' && state.count > 0 && (
        <p className="muted" data-testid="segment-sendable">
          {state.sendable.toLocaleString()} of {state.count.toLocaleString()} can be mailed: a campaign reaches the confirmed ones who are not
          blacklisted or disabled.
        </p>
      )}
      {state.status === 'invalid' && (
        <ul className="errors">
          {Object.entries(state.errors).map(([path, messages]) => (
            <li key={path}>
              <code>{path.replace(/^definition\./, '')}</code>: {messages.join(' ')}
            </li>
          ))}
        </ul>
      )}
      {state.status === 'ready' && state.sample.length > 0 && (
        <>
          <h3 className="section-title">The first {state.sample.length}</h3>
          <ul className="plain stack" data-testid="segment-sample">
            {state.sample.map((s) => (
              <li key={s.id} className="row">
                <Link className="break" to={`subscribers/${s.id}`}>
                  {s.email}
                </Link>{' '}
                <SubscriberStatus confirmed={s.confirmed} blacklisted={s.blacklisted} />
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
