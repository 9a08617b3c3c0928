import { useEffect, useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { useApi } from '../../api/useApi';
import { ErrorState, Loading, Notice, PageHeader } from '../../ui/kit';
import { AttributeChooser, ListChooser } from './Choosers';
import { EmbedPanel } from './EmbedPanel';
import { LookFields, TextFields } from './Fields';
import { allAttributes, allLists, pageData } from './load';
import { PreviewPanel } from './PreviewPanel';
import { savePage, type PageDraft, type SaveResult } from './save';
import { draftOf, type Draft, type SettingName } from './settings';
import '../templates.css';
import './signup-forms.css';

const NO_LIST =
  'A form can only be active once it offers a public list: tick one under "Lists offered". An active form without one shows visitors "Sign-ups are not open yet".';

/**
 * One subscribe page: title and active, the lists and attributes of its form, its texts, options and look, one Save
 * that writes what changed; beside it a preview and the embed code (both of the page as saved).
 */
export default function SignupFormPage({ id }: { id: number }) {
  const loaded = useApi(async () => {
    const [page, data, lists, attributes] = await Promise.all([
      unwrap(api.GET('/api/v2/subscribe-pages/{pageId}', { params: { path: { pageId: id } } })),
      pageData(id),
      allLists(),
      allAttributes(),
    ]);
    return { page, draft: draftOf(data), lists, attributes };
  }, [id]);
  // What is stored (the baseline a save compares with) and what is on screen.
  const [saved, setSaved] = useState<{ page: PageDraft; draft: Draft } | null>(null);
  const [now, setNow] = useState<{ page: PageDraft; draft: Draft } | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<SaveResult | null>(null);
  const [activeError, setActiveError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    if (!loaded.data) return;
    const state = { page: { title: loaded.data.page.title, active: loaded.data.page.active }, draft: loaded.data.draft };
    setSaved(state);
    setNow(state);
  }, [loaded.data]);

  if (loaded.status === 'error') return <ErrorState error={loaded.error} retry={loaded.reload} />;
  if (!loaded.data || !saved || !now) return <Loading />;
  const { lists, attributes } = loaded.data;
  const visible = new Map(lists.map((l) => [l.id, l]));
  // A list this administrator cannot see (another's) may well be public: only lists known to be private count against.
  const offersList = (draft: Draft) => draft.lists.some((listId) => visible.get(listId)?.public ?? true);
  const setDraft = (change: Partial<Draft>) => setNow({ ...now, draft: { ...now.draft, ...change } });
  const setPage = (change: Partial<PageDraft>) => setNow({ ...now, page: { ...now.page, ...change } });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setResult(null);
    // Refused here rather than stored: the API lets an active page have no list (issue 25 chose to explain it on the
    // public page), but nobody means to publish a form that cannot be sent.
    if (now.page.active && !offersList(now.draft)) {
      setActiveError(NO_LIST);
      return;
    }
    setActiveError(null);
    setBusy(true);
    try {
      const answer = await savePage(id, saved, now);
      setResult(answer);
      // The new baseline is what the service now holds; refused values stay on screen to be corrected.
      const stored = draftOf(await pageData(id));
      setSaved({ page: answer.page ? { title: answer.page.title, active: answer.page.active } : saved.page, draft: stored });
      if (answer.page) setNow((current) => current && { ...current, page: { title: answer.page!.title, active: answer.page!.active } });
      setVersion((v) => v + 1);
    } catch (err) {
      setResult({ saved: [], refused: {}, failure: (err as Error).message, page: null, held: false });
    } finally {
      setBusy(false);
    }
  };

  const refused = (name: SettingName | 'title') => result?.refused[name];
  const fieldError = (name: SettingName | 'title') =>
    refused(name) ? (
      <span id={`${name}-error`} className="field-error" role="alert">
        {refused(name)}
      </span>
    ) : null;
  const liveWithoutList = saved.page.active && !offersList(saved.draft);

  return (
    <>
      <PageHeader title={saved.page.title} back={{ to: 'signup-forms', label: 'Sign-up forms' }}>
        {saved.page.active ? <span className="badge good">Active</span> : <span className="badge">Inactive</span>}
      </PageHeader>
      {liveWithoutList && (
        <Notice kind="error">
          This form is active but offers no public list, so visitors see “Sign-ups are not open yet”. Tick a list and save.
        </Notice>
      )}
      <div className="signup-panes">
        <form className="stack" onSubmit={(e) => void submit(e)} noValidate aria-label="Sign-up form settings">
          <section className="card stack" aria-labelledby="form-page-title">
            <h2 id="form-page-title">Page</h2>
            <label>
              Title
              <input
                required
                maxLength={255}
                value={now.page.title}
                aria-invalid={refused('title') ? true : undefined}
                aria-describedby={refused('title') ? 'title-error' : undefined}
                onChange={(e) => setPage({ title: e.target.value })}
              />
              {fieldError('title')}
            </label>
            <label className="inline">
              <input
                type="checkbox"
                checked={now.page.active}
                aria-invalid={activeError ? true : undefined}
                aria-describedby={activeError ? 'active-error' : 'active-note'}
                onChange={(e) => setPage({ active: e.target.checked })}
              />{' '}
              Active (the public form takes sign-ups)
            </label>
            {activeError ? (
              <p id="active-error" className="field-error" role="alert">
                {activeError}
              </p>
            ) : (
              <p id="active-note" className="muted small">
                An inactive form answers “not found”, on this service and wherever it is embedded.
              </p>
            )}
          </section>
          <section className="card stack" aria-labelledby="form-fields-title">
            <h2 id="form-fields-title">What the form asks</h2>
            <ListChooser lists={lists} value={now.draft.lists} onChange={(ids) => setDraft({ lists: ids })} error={fieldError('lists')} />
            <AttributeChooser attributes={attributes} value={now.draft.attributes} onChange={(ids) => setDraft({ attributes: ids })} />
            {fieldError('attributes')}
          </section>
          <TextFields draft={now.draft} onChange={setDraft} fieldError={fieldError} />
          <LookFields draft={now.draft} onChange={setDraft} fieldError={fieldError} />
          <div className="card form-actions">
            <SaveSummary result={result} />
            <button type="submit" className="button primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save'}
            </button>
          </div>
        </form>
        <div className="stack">
          <PreviewPanel pageId={id} version={version} />
          <EmbedPanel pageId={id} version={version} active={saved.page.active} />
        </div>
      </div>
    </>
  );
}

function SaveSummary({ result }: { result: SaveResult | null }) {
  if (!result) return null;
  const refused = Object.keys(result.refused).length;
  return (
    <div className="stack signup-save-summary">
      {result.failure && <Notice kind="error">Not saved: {result.failure}</Notice>}
      {refused > 0 && (
        <Notice kind="error">
          {refused === 1 ? 'One field was refused' : `${refused} fields were refused`}: see the message beside it.
          {result.saved.length > 0 ? ` Saved: ${result.saved.join(', ')}.` : ''}
          {result.held ? ' The title and active state are saved once it is corrected.' : ''}
        </Notice>
      )}
      {!result.failure && refused === 0 && (
        <Notice kind="success">{result.saved.length > 0 ? `Saved: ${result.saved.join(', ')}.` : 'Nothing had changed.'}</Notice>
      )}
    </div>
  );
}
