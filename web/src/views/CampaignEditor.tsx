import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import type { Campaign } from '../api/types';
import { useApi } from '../api/useApi';
import { can, useAuth } from '../auth';
import { Link, navigate, useLeaveGuard, useLocation } from '../router';
import type { CodeEditorHandle } from '../ui/CodeEditor';
import { ErrorState, Loading, Notice, PageHeader } from '../ui/kit';
import { AttachmentsPanel } from './campaign/Attachments';
import { ChecksPanel } from './campaign/Checks';
import { AudienceFields, MessageFields } from './campaign/Fields';
import { bodyOf, emptyForm, formOf, sameForm, type CampaignForm } from './campaign/form';
import { PreviewPanel } from './campaign/Preview';
import { StatusBadge, canEdit, explainConflict } from './campaign/status';
import { TestSendPanel } from './campaign/TestSend';
import './campaign/campaign.css';

const LEAVE = 'You have unsaved changes to this campaign. Leave without saving them?';

/** What the editor needs besides the campaign: lists to choose from and templates (each may be out of reach). */
function useChoices() {
  const { admin } = useAuth();
  const mayLists = can(admin, 'subscribers');
  return useApi(async () => {
    const [lists, templates, segments] = await Promise.all([
      mayLists
        ? unwrap(api.GET('/api/v2/lists', { params: { query: { limit: 100 } } })).then((p) => p.items.map((l) => ({ id: l.id, name: l.name })))
        : Promise.resolve('Choosing lists needs the subscribers privilege.'),
      unwrap(api.GET('/api/v2/templates', { params: { query: { limit: 100 } } }))
        .then((p) => p.items.map((t) => ({ id: t.id, title: t.title })))
        .catch(() => null),
      mayLists
        ? unwrap(api.GET('/api/v2/segments', { params: { query: { limit: 100 } } })).then((p) => p.items.map((s) => ({ id: s.id, name: s.name })))
        : Promise.resolve('Choosing a segment needs the subscribers privilege.'),
    ]);
    return { lists, templates, segments };
  }, [mayLists]);
}

/** `campaigns/new` and `campaigns/:id`: write a campaign; once saved, attach files, check, preview and test it. */
export default function CampaignEditor({ id }: { id: number | null }) {
  const loaded = useApi(async () => {
    if (id === null) return null;
    const [campaign, lists] = await Promise.all([
      unwrap(api.GET('/api/v2/campaigns/{messageId}', { params: { path: { messageId: id } } })),
      unwrap(api.GET('/api/v2/list-messages/message/{messageId}/lists', { params: { path: { messageId: id } } })),
    ]);
    return { campaign, listIds: lists.items.map((l) => l.id) };
  }, [id]);
  if (loaded.status === 'error') return <ErrorState error={loaded.error} retry={loaded.reload} />;
  if (loaded.status === 'loading' && !loaded.data && id !== null) return <Loading />;
  const data = loaded.data ?? null;
  return <Editor key={id ?? 'new'} id={id} campaign={data?.campaign ?? null} initial={data ? formOf(data.campaign, data.listIds) : emptyForm()} />;
}

function Editor({ id, campaign: first, initial }: { id: number | null; campaign: Campaign | null; initial: CampaignForm }) {
  const loc = useLocation();
  const choices = useChoices();
  const [campaign, setCampaign] = useState(first);
  const [saved, setSaved] = useState(initial);
  const [form, setForm] = useState(initial);
  const [version, setVersion] = useState(0);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const editor = useRef<CodeEditorHandle>(null);
  const dirty = !sameForm(form, saved);
  const status = campaign?.message_metadata.status ?? 'draft';
  const editable = canEdit(status);
  useLeaveGuard(dirty, LEAVE);

  const set = useCallback(<K extends keyof CampaignForm>(key: K, value: CampaignForm[K]) => setForm((f) => ({ ...f, [key]: value })), []);
  const checks = useApi(
    () =>
      id === null
        ? Promise.resolve({ warnings: [] })
        : unwrap(api.GET('/api/v2/campaigns/{messageId}/checks', { params: { path: { messageId: id } } })),
    [id, version],
  );
  const copiedFrom = loc.query.get('copied');
  useEffect(() => {
    if (copiedFrom)
      setNotice({ kind: 'success', text: 'This is a new draft copied from the campaign you chose. Lists are not copied: choose them below.' });
  }, [copiedFrom]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setNotice(null);
    try {
      const body = bodyOf(form);
      const answer =
        id === null
          ? await unwrap(api.POST('/api/v2/campaigns', { body }))
          : await unwrap(api.PUT('/api/v2/campaigns/{messageId}', { params: { path: { messageId: id } }, body }));
      const path = { messageId: answer.id };
      for (const listId of form.listIds.filter((l) => !saved.listIds.includes(l))) {
        await unwrap(api.POST('/api/v2/list-messages/message/{messageId}/list/{listId}', { params: { path: { ...path, listId } } }));
      }
      for (const listId of saved.listIds.filter((l) => !form.listIds.includes(l))) {
        await unwrap(api.DELETE('/api/v2/list-messages/message/{messageId}/list/{listId}', { params: { path: { ...path, listId } } }));
      }
      if (id === null) {
        navigate(`campaigns/${answer.id}`, { replace: true, force: true });
        return;
      }
      setCampaign(answer);
      setSaved(form);
      setVersion((v) => v + 1);
      setNotice({ kind: 'success', text: 'Saved.' });
    } catch (err) {
      setNotice({ kind: 'error', text: err instanceof ApiError ? explainConflict(err, 'save') : String(err) });
    } finally {
      setBusy(false);
    }
  };

  const lists = choices.status === 'error' ? choices.error.message : (choices.data?.lists ?? []);
  return (
    <>
      <PageHeader title={id === null ? 'New campaign' : saved.subject || 'Campaign'} back={{ to: 'campaigns', label: 'Campaigns' }}>
        {campaign && <StatusBadge status={status} />}
        {dirty && <span className="badge warn">Unsaved changes</span>}
        {editable && (
          <button type="submit" form="campaign-form" className="button primary" disabled={busy}>
            {busy ? 'Saving…' : id === null ? 'Save draft' : 'Save'}
          </button>
        )}
        {id !== null && (
          <>
            <Link className="button" to={`campaigns/${id}/send`}>
              Send…
            </Link>
            <Link className="button" to={`campaigns/${id}/report`}>
              Report
            </Link>
          </>
        )}
      </PageHeader>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      {!editable && (
        <Notice>
          This campaign is {status === 'sent' ? 'sent' : 'being sent'}, so its content is fixed. Copy it from the campaigns table to reuse it.
        </Notice>
      )}
      <form id="campaign-form" className="editor-grid" onSubmit={(e) => void save(e)}>
        <MessageFields
          form={form}
          set={set}
          readOnly={!editable}
          templates={choices.data?.templates ?? null}
          editor={editor}
          onInsert={(placeholder) => editor.current?.insert(placeholder)}
        />
        <AudienceFields form={form} set={set} readOnly={!editable} lists={lists} segments={choices.data?.segments ?? []} />
      </form>
      {id === null ? (
        <p className="muted">Save the draft to attach files, run the checks, preview it for a subscriber and send a test.</p>
      ) : (
        <div className="editor-tools">
          <ChecksPanel checks={checks} rerun={checks.reload} onJump={(line) => editor.current?.goToLine(line)} />
          <AttachmentsPanel campaignId={id} editable={editable} />
          <PreviewPanel campaignId={id} version={version} />
          <TestSendPanel campaignId={id} dirty={dirty} />
        </div>
      )}
    </>
  );
}
