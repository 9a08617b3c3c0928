import { campaignName } from './campaign/name';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import type { Campaign } from '../api/types';
import { useApi } from '../api/useApi';
import { can, useAuth } from '../auth';
import { Link, navigate, useLeaveGuard, useLocation } from '../router';
import { ErrorState, Loading, Notice, PageHeader } from '../ui/kit';
import { AttachmentsPanel } from './campaign/Attachments';
import { ChecksPanel } from './campaign/Checks';
import { BodyEditor } from './campaign/body/BodyEditor';
import type { BodyValue } from './campaign/body/formats';
import type { BodyEditorHandle } from './campaign/body/handle';
import type { PickImage } from './campaign/body/VisualEditor';
import { AudienceFields, DeliveryFields, MessageFields } from './campaign/Fields';
import { bodyOf, emptyForm, formOf, outdatedNote, sameForm, type CampaignForm } from './campaign/form';
import { PlaceholderPanel } from './campaign/Placeholders';
import { PreviewPanel } from './campaign/Preview';
import { StatusBadge, canEdit, explainConflict } from './campaign/status';
import { TestSendPanel } from './campaign/TestSend';
import './campaign/campaign.css';
import { useImagePicker } from './media/useImagePicker';

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

/**
 * `campaigns/new` and `campaigns/:id`: write a campaign; once saved, attach files, check, preview and test it.
 * The visual format's image blocks offer the media library's picker (`pickImage` replaces it).
 */
export default function CampaignEditor({ id, pickImage }: { id: number | null; pickImage?: PickImage }) {
  const [pickFromLibrary, libraryDialog] = useImagePicker();
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
  return (
    <>
      <Editor
        key={id ?? 'new'}
        id={id}
        campaign={data?.campaign ?? null}
        initial={data ? formOf(data.campaign, data.listIds) : emptyForm()}
        pickImage={pickImage ?? pickFromLibrary}
      />
      {libraryDialog}
    </>
  );
}

/** Ctrl+S, or Cmd+S on a Mac. */
const isSaveKey = (e: KeyboardEvent) => (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 's';

function Editor({
  id,
  campaign: first,
  initial,
  pickImage,
}: {
  id: number | null;
  campaign: Campaign | null;
  initial: CampaignForm;
  pickImage?: PickImage;
}) {
  const loc = useLocation();
  const choices = useChoices();
  const [campaign, setCampaign] = useState(first);
  const [saved, setSaved] = useState(initial);
  const [form, setForm] = useState(initial);
  const [version, setVersion] = useState(0);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const editor = useRef<BodyEditorHandle>(null);
  const formRef = useRef<HTMLFormElement>(null);
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
  // The keyboard save, wherever the focus is (the editors leave Ctrl+S alone); the browser's "save page" is not wanted here.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isSaveKey(e)) return;
      e.preventDefault();
      if (editable && !busy) formRef.current?.requestSubmit();
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [editable, busy]);
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
  const bodyValue: BodyValue = { format: form.editorFormat, source: form.editorSource, body: form.body };
  const setBody = useCallback(
    (v: BodyValue) =>
      setForm((f) => ({
        ...f,
        editorFormat: v.format,
        editorSource: v.source,
        body: v.body,
        // The plain-text format is text-only mail; leaving it sends HTML again.
        sendFormat: v.format === 'text' ? 'text' : f.sendFormat === 'text' ? 'html' : f.sendFormat,
      })),
    [],
  );
  return (
    <>
      <PageHeader title={id === null ? 'New campaign' : campaignName(saved.name, saved.subject, id)} back={{ to: 'campaigns', label: 'Campaigns' }}>
        {campaign && <StatusBadge status={status} />}
        {dirty && <span className="badge warn">Unsaved changes</span>}
        {editable && (
          <span className="muted save-hint" aria-hidden="true">
            Ctrl+S / ⌘S saves
          </span>
        )}
        {editable && (
          <button
            type="submit"
            form="campaign-form"
            className="button primary"
            disabled={busy}
            aria-keyshortcuts="Control+S Meta+S"
            title="Save (Ctrl+S, ⌘S on a Mac)"
          >
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
      <form id="campaign-form" ref={formRef} className="stack campaign-form" onSubmit={(e) => void save(e)}>
        <MessageFields form={form} set={set} readOnly={!editable} />
        <BodyEditor
          ref={editor}
          value={bodyValue}
          onChange={setBody}
          readOnly={!editable}
          footer={form.footer}
          hasTemplate={form.templateId !== ''}
          note={outdatedNote(campaign)}
          pickImage={pickImage}
          placeholders={editable ? <PlaceholderPanel onInsert={(placeholder) => editor.current?.insert(placeholder)} /> : undefined}
        />
        <div className="editor-grid">
          <DeliveryFields form={form} set={set} readOnly={!editable} templates={choices.data?.templates ?? null} />
          <AudienceFields form={form} set={set} readOnly={!editable} lists={lists} segments={choices.data?.segments ?? []} />
        </div>
      </form>
      {id === null ? (
        <p className="muted">Save the draft to attach files, run the checks, preview it for a subscriber and send a test.</p>
      ) : (
        <div className="editor-tools">
          <ChecksPanel
            checks={checks}
            rerun={checks.reload}
            onJump={form.editorFormat === 'html' ? (line) => editor.current?.goToLine?.(line) : undefined}
          />
          <AttachmentsPanel campaignId={id} editable={editable} />
          <PreviewPanel campaignId={id} version={version} />
          <TestSendPanel campaignId={id} dirty={dirty} />
        </div>
      )}
    </>
  );
}
