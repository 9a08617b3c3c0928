import { lazy, Suspense, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import type { ApiError } from '../api/client';
import { api, unwrap } from '../api/client';
import { useApi } from '../api/useApi';
import { navigate } from '../router';
import type { CodeEditorHandle } from '../ui/CodeEditor';
import { imageTag, MediaPicker } from './media/MediaPicker';
import { ErrorState, Loading, Notice, PageHeader } from '../ui/kit';
import { CheckResults, findLines, type CheckReport, type Checks } from './TemplateChecks';
import { DeleteTemplate, type Template } from './Templates';
import { TemplateImages } from './TemplateImages';
import { withPreviewPolicy } from './previewPolicy';
import './templates.css';

// CodeMirror comes with this view only, and the page can show its form while it loads.
const CodeEditor = lazy(() => import('../ui/CodeEditor'));

const SAMPLE_BODY =
  "<h1>Sample campaign heading</h1><p>This is where each campaign's content goes: the template's <code>[CONTENT]</code> " +
  'placeholder is replaced by it when the campaign is sent.</p><p>A second paragraph, with <a href="https://example.com/">a link</a>, ' +
  'shows how text flows in your design.</p>';
const STARTER =
  '<!DOCTYPE html>\n<html>\n<head>\n  <meta charset="utf-8">\n  <title>[SUBJECT]</title>\n</head>\n<body>\n  [CONTENT]\n</body>\n</html>\n';
// The preview runs nothing and fetches nothing: a sandbox without any permission, and the preview policy.
/** The result of creating a template, shown again by the page of the new template the view moves to. */
let carried: CheckReport | null = null;

/** One template: title, HTML in a code editor with a live preview, text version, checks, upload, images. */
export default function TemplatePage({ id }: { id: number | null }) {
  const loaded = useApi(
    async () => (id === null ? null : unwrap(api.GET('/api/v2/templates/{templateId}', { params: { path: { templateId: id } } }))),
    [id],
  );
  if (loaded.status === 'error') return <ErrorState error={loaded.error} retry={loaded.reload} />;
  if (loaded.status === 'loading' && !loaded.data && id !== null) return <Loading />;
  return <TemplateForm key={id ?? 'new'} template={loaded.data ?? null} />;
}

function TemplateForm({ template }: { template: Template | null }) {
  const [saved, setSaved] = useState<Template | null>(template);
  const [title, setTitle] = useState(template?.title ?? '');
  const [content, setContent] = useState(template?.content ?? STARTER);
  const [text, setText] = useState(template?.text ?? '');
  const [order, setOrder] = useState(String(template?.list_order ?? 0));
  const [report, setReport] = useState<CheckReport | null>(() => {
    const kept = carried;
    carried = null;
    return kept;
  });
  // A new template's page keeps the checks chosen when it was created.
  const [checks, setChecks] = useState<Checks>(report?.checks ?? { links: true, images: true, external: false });
  const [busy, setBusy] = useState(false);
  const [phone, setPhone] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const editor = useRef<CodeEditorHandle>(null);
  const [picking, setPicking] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  const dirty = saved
    ? title !== saved.title || content !== (saved.content ?? '') || text !== (saved.text ?? '') || order !== String(saved.list_order ?? 0)
    : title !== '' || content !== STARTER || text !== '';
  // Unsaved work is not lost silently: the browser asks before the page is left or reloaded.
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const preview = useMemo(() => withPreviewPolicy(content.split('[CONTENT]').join(SAMPLE_BODY)), [content]);

  /** Saves as JSON, or with `file` as the content (multipart, as the API's upload); the checks run either way. */
  const save = async (file: File | null, fileText = '') => {
    setBusy(true);
    setReport(null);
    const fields = {
      title: title.trim(),
      text: text === '' ? null : text,
      list_order: Number(order) || 0,
      check_links: checks.links,
      check_images: checks.images,
      check_external_images: checks.external,
    };
    const body = file ? formOf(fields, file) : null;
    const json = { ...fields, content };
    const options = { body: json, ...(body ? { bodySerializer: () => body } : {}) };
    try {
      const result = saved
        ? await unwrap(api.PUT('/api/v2/templates/{templateId}', { params: { path: { templateId: saved.id } }, ...options }))
        : await unwrap(api.POST('/api/v2/templates', options));
      setSaved(result);
      setContent(result.content ?? '');
      setText(result.text ?? '');
      const done = { ok: true, checks, file: file?.name ?? null, problems: [] };
      setReport(done);
      if (!saved) {
        carried = done;
        navigate(`templates/${result.id}`, { replace: true });
      }
    } catch (err) {
      const error = err as ApiError;
      const problems = Object.entries(error.fields).flatMap(([field, messages]) =>
        messages.map((message) => ({
          field,
          message,
          lines: field === 'content' ? findLines(content, message) : field === 'file' ? findLines(fileText, message) : [],
        })),
      );
      setReport({
        ok: false,
        checks,
        file: file?.name ?? null,
        problems: problems.length ? problems : [{ field: '', message: error.message, lines: [] }],
      });
    } finally {
      setBusy(false);
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  /** The chosen checks on the editor's HTML and text as they are, saving nothing (POST /templates/check). */
  const runChecks = async () => {
    setBusy(true);
    setReport(null);
    try {
      await unwrap(
        api.POST('/api/v2/templates/check', {
          body: {
            content,
            text: text === '' ? null : text,
            check_links: checks.links,
            check_images: checks.images,
            check_external_images: checks.external,
          },
        }),
      );
      setReport({ ok: true, checks, file: null, problems: [], dryRun: true });
    } catch (err) {
      const error = err as ApiError;
      const problems = Object.entries(error.fields).flatMap(([field, messages]) =>
        messages.map((message) => ({ field, message, lines: field === 'content' ? findLines(content, message) : [] })),
      );
      setReport({
        ok: false,
        checks,
        file: null,
        problems: problems.length ? problems : [{ field: '', message: error.message, lines: [] }],
        dryRun: true,
      });
    } finally {
      setBusy(false);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save(null);
  };

  return (
    <>
      <PageHeader title={saved ? saved.title : 'New template'} back={{ to: 'templates', label: 'Templates' }}>
        {saved && (
          <button type="button" className="button danger" onClick={() => setDeleting(true)}>
            Delete
          </button>
        )}
      </PageHeader>
      <form className="stack" onSubmit={submit} aria-label="Template">
        <section className="card stack">
          <div className="row">
            <label>
              Title
              <input required value={title} onChange={(e) => setTitle(e.target.value)} maxLength={255} />
            </label>
            <label className="narrow-field">
              Order in lists
              <input type="number" inputMode="numeric" value={order} onChange={(e) => setOrder(e.target.value)} />
            </label>
          </div>
          <fieldset>
            <legend>Checks (run when saving, or now without saving)</legend>
            <div className="checks">
              <label className="inline">
                <input type="checkbox" checked={checks.links} onChange={(e) => setChecks({ ...checks, links: e.target.checked })} /> Links are full
                URLs
              </label>
              <label className="inline">
                <input type="checkbox" checked={checks.images} onChange={(e) => setChecks({ ...checks, images: e.target.checked })} /> Images are full
                URLs
              </label>
              <label className="inline">
                <input type="checkbox" checked={checks.external} onChange={(e) => setChecks({ ...checks, external: e.target.checked })} /> Remote
                images load (asks each image's server)
              </label>
            </div>
            <button type="button" className="button" disabled={busy} onClick={() => void runChecks()}>
              Run the checks now
            </button>
          </fieldset>
          <div className="row">
            <label>
              Upload an HTML file as the template
              <input
                ref={fileInput}
                type="file"
                accept=".html,.htm,text/html"
                disabled={busy || !title.trim()}
                aria-describedby="upload-help"
                onChange={(e) => {
                  const file = e.target.files?.[0];
                  // The file is shown in the editor too, so the lines of what the checks find can be pointed at.
                  if (file)
                    void file.text().then((fileText) => {
                      setContent(fileText);
                      return save(file, fileText);
                    });
                }}
              />
            </label>
          </div>
          <p id="upload-help" className="muted small">
            {title.trim() ? 'The file replaces the HTML below and is saved at once, with the checks above.' : 'Give the template a title first.'}
          </p>
        </section>
        {report && <CheckResults report={report} goToLine={(n) => editor.current?.goToLine(n)} />}
        <div className="template-panes">
          <section className="card stack" aria-label="HTML">
            <div className="section-title">
              <span />
              <button type="button" className="button" onClick={() => setPicking(true)}>
                Insert image…
              </button>
            </div>
            <MediaPicker
              open={picking}
              onClose={() => setPicking(false)}
              onPick={(m) => {
                setPicking(false);
                editor.current?.insert(imageTag(m));
              }}
            />
            <Suspense fallback={<Loading label="Opening the editor…" />}>
              <CodeEditor
                ref={editor}
                label="HTML (must contain [CONTENT])"
                value={content}
                onChange={setContent}
                language="html"
                minHeight="22rem"
              />
            </Suspense>
          </section>
          <section className="card stack" aria-labelledby="preview-title">
            <div className="section-title">
              <h2 id="preview-title">Preview with a sample campaign</h2>
              <label className="inline">
                <input type="checkbox" checked={phone} onChange={(e) => setPhone(e.target.checked)} /> Phone width
              </label>
            </div>
            <iframe className={`template-preview ${phone ? 'phone' : ''}`} title="Template preview" sandbox="" srcDoc={preview} />
            <p className="muted small">Remote images are not loaded in the preview; images embedded in the HTML are.</p>
          </section>
        </div>
        <section className="card stack" aria-label="Text version">
          <Suspense fallback={<Loading />}>
            <CodeEditor
              label="Text version (optional; must contain [CONTENT] when given)"
              value={text}
              onChange={setText}
              language="text"
              minHeight="6rem"
            />
          </Suspense>
        </section>
        <div className="form-actions">
          {dirty && <span className="muted">Unsaved changes</span>}
          <button type="submit" className="button primary" disabled={busy}>
            {busy ? 'Saving…' : saved ? 'Save template' : 'Create template'}
          </button>
        </div>
      </form>
      {saved && <TemplateImages images={saved.images ?? []} />}
      {!saved && <Notice>Images used by the template are listed here once it is saved.</Notice>}
      <DeleteTemplate template={deleting ? saved : null} onClose={() => setDeleting(false)} onDeleted={() => navigate('templates')} />
    </>
  );
}

function formOf(fields: Record<string, string | number | boolean | null>, file: File): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) if (value !== null) form.append(name, String(value));
  form.append('file', file, file.name);
  return form;
}
