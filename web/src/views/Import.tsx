import { useState, type FormEvent } from 'react';
import { api, ApiError, fetchBlob, session, unwrap } from '../api/client';
import type { ImportResult } from '../api/types';
import { useApi } from '../api/useApi';
import { Notice, PageHeader } from '../ui/kit';
import { columnChoices, columnsOption, guessColumns, headerCells, type ColumnChoice, type MappableAttribute } from './importColumns';

type Phase = { step: 'idle' } | { step: 'uploading'; sent: number; total: number } | { step: 'writing' } | { step: 'done'; result: ImportResult };

/**
 * CSV import: the header is read from the first 64 KB only and each column's use shown; the file itself goes to the
 * API as it is, streamed by the browser from disk (the service writes rows while they arrive), so a file of a
 * million rows never sits in the page's memory and the page stays responsive.
 */
export default function Import() {
  const [file, setFile] = useState<File | null>(null);
  const [columns, setColumns] = useState<string[] | null>(null);
  const [choices, setChoices] = useState<ColumnChoice[]>([]);
  const [listId, setListId] = useState('');
  const [updateExisting, setUpdateExisting] = useState(false);
  const [sendConfirmation, setSendConfirmation] = useState(true);
  const [markConfirmed, setMarkConfirmed] = useState(false);
  // New subscribers' mail format: the service's setting (SUBSCRIBER_HTML_DEFAULT) until the administrator picks one.
  const [htmlChoice, setHtmlChoice] = useState<boolean | null>(null);
  const [phase, setPhase] = useState<Phase>({ step: 'idle' });
  const [error, setError] = useState<string | null>(null);

  const context = useApi(async () => {
    const [lists, attributes, defaults] = await Promise.all([
      unwrap(api.GET('/api/v2/lists', { params: { query: { limit: 100 } } })).then((p) => p.items),
      unwrap(api.GET('/api/v2/attributes', { params: { query: { limit: 100 } } })).then(
        (p) => p.items.map((a): MappableAttribute => ({ id: a.id, name: a.name })),
        () => [] as MappableAttribute[],
      ),
      unwrap(api.GET('/api/v2/subscribers/defaults')),
    ]);
    return { lists, attributes, htmlEmail: defaults.html_email };
  }, []);
  const htmlEmail = htmlChoice ?? context.data?.htmlEmail ?? true;

  const choose = async (chosen: File | null) => {
    setFile(chosen);
    setPhase({ step: 'idle' });
    setError(null);
    const header = chosen ? headerCells(await chosen.slice(0, 65_536).text()) : null;
    setColumns(header);
    setChoices(header ? guessColumns(header, context.data?.attributes ?? []) : []);
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    setError(null);
    setPhase({ step: 'uploading', sent: 0, total: file.size });
    try {
      const mapping = columnsOption(columns ?? [], choices);
      const result = await upload(file, { listId, updateExisting, sendConfirmation, markConfirmed, htmlEmail, mapping }, (sent, total) =>
        setPhase(sent < total ? { step: 'uploading', sent, total } : { step: 'writing' }),
      );
      setPhase({ step: 'done', result });
    } catch (err) {
      setPhase({ step: 'idle' });
      setError((err as Error).message);
    }
  };

  const busy = phase.step === 'uploading' || phase.step === 'writing';
  const hasEmail = choices.includes('email');
  const menu = columnChoices(context.data?.attributes ?? []);
  return (
    <>
      <PageHeader title="Import subscribers" />
      <form className="card stack" onSubmit={(e) => void submit(e)}>
        {error && <Notice kind="error">{error}</Notice>}
        <label>
          CSV file
          <input type="file" accept=".csv,text/csv" disabled={busy} onChange={(e) => void choose(e.target.files?.[0] ?? null)} />
        </label>
        {columns && (
          <div className="table-wrap">
            <table aria-label="Columns found">
              <thead>
                <tr>
                  <th scope="col">Column</th>
                  <th scope="col">Imported as</th>
                </tr>
              </thead>
              <tbody>
                {columns.map((c, i) => (
                  <tr key={i}>
                    <td id={`column-${i}`}>{c || <em>(no name)</em>}</td>
                    <td>
                      <select
                        aria-labelledby={`column-${i}`}
                        value={choices[i] ?? ''}
                        disabled={busy || c === ''}
                        onChange={(e) => setChoices(choices.map((old, j) => (j === i ? e.target.value : old)))}
                      >
                        {menu.map((m) => (
                          <option key={m.value} value={m.value}>
                            {m.label}
                          </option>
                        ))}
                      </select>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {columns && !hasEmail && <Notice kind="error">Choose the column that holds the e-mail address: the import needs one.</Notice>}
        <div className="row">
          <label>
            Add everyone to list
            <select value={listId} disabled={busy} onChange={(e) => setListId(e.target.value)}>
              <option value="">No list</option>
              {context.data?.lists.map((l) => (
                <option key={l.id} value={String(l.id)}>
                  {l.name}
                </option>
              ))}
            </select>
          </label>
        </div>
        <label className="inline">
          <input type="checkbox" checked={markConfirmed} disabled={busy} onChange={(e) => setMarkConfirmed(e.target.checked)} /> Mark everyone
          imported as confirmed (when the file has no “confirmed” column)
        </label>
        <fieldset disabled={busy || markConfirmed}>
          <legend>People who are not confirmed (no “confirmed” column saying 1)</legend>
          <label className="inline">
            <input type="radio" name="confirmation" checked={sendConfirmation} onChange={() => setSendConfirmation(true)} /> are sent a confirmation
            mail when they join the list
          </label>
          <label className="inline">
            <input type="radio" name="confirmation" checked={!sendConfirmation} onChange={() => setSendConfirmation(false)} /> join without any mail
          </label>
        </fieldset>
        <fieldset disabled={busy}>
          <legend>New subscribers get (when the file has no “html_email” column)</legend>
          <label className="inline">
            <input type="radio" name="format" checked={htmlEmail} onChange={() => setHtmlChoice(true)} /> HTML mail
          </label>
          <label className="inline">
            <input type="radio" name="format" checked={!htmlEmail} onChange={() => setHtmlChoice(false)} /> the text version only
          </label>
        </fieldset>
        <label className="inline">
          <input type="checkbox" checked={updateExisting} disabled={busy} onChange={(e) => setUpdateExisting(e.target.checked)} /> Update people who
          already exist (otherwise they are left as they are)
        </label>
        <div>
          <button type="submit" className="button primary" disabled={!file || !hasEmail || busy}>
            Import
          </button>
        </div>
        {phase.step === 'uploading' && (
          <div className="stack">
            <label>
              Uploading and writing rows: {Math.floor((phase.sent / Math.max(1, phase.total)) * 100)}%
              <progress max={phase.total} value={phase.sent} />
            </label>
          </div>
        )}
        {phase.step === 'writing' && (
          <label>
            Writing the last rows…
            <progress />
          </label>
        )}
      </form>
      {phase.step === 'done' && <Summary result={phase.result} />}
    </>
  );
}

function Summary({ result }: { result: ImportResult }) {
  return (
    <section className="card" aria-label="Import summary">
      <h2>Import finished</h2>
      <div className="grid">
        <div className="stat">
          <div className="stat-label">Imported</div>
          <div className="stat-value">{result.imported.toLocaleString('en')}</div>
        </div>
        <div className="stat">
          <div className="stat-label">Updated</div>
          <div className="stat-value">{result.updated.toLocaleString('en')}</div>
        </div>
        <div className="stat">
          <div className="stat-label">Skipped</div>
          <div className="stat-value">{result.skipped.toLocaleString('en')}</div>
        </div>
        <div className="stat">
          <div className="stat-label">Rejected rows</div>
          <div className="stat-value">{result.errors.length.toLocaleString('en')}</div>
        </div>
        <div className="stat">
          <div className="stat-label">Twice in the file</div>
          <div className="stat-value">{result.duplicates_in_file.toLocaleString('en')}</div>
        </div>
        <div className="stat">
          <div className="stat-label">Already subscribers</div>
          <div className="stat-value">{result.existing_subscribers.toLocaleString('en')}</div>
        </div>
      </div>
      {result.report && <ReportDownload url={result.report.url} rows={result.report.rows} />}
      {result.errors.length > 0 && (
        <>
          <h3>Rejected rows</h3>
          <ul className="errors">
            {result.errors.slice(0, 500).map((e, i) => (
              <li key={i}>{e}</li>
            ))}
          </ul>
          {result.errors.length > 500 && <p className="muted">… and {result.errors.length - 500} more.</p>}
        </>
      )}
    </section>
  );
}

/**
 * The upload goes through XMLHttpRequest because fetch reports no upload progress. The options travel in the query
 * string (the API reads them there), so the body is just the file.
 */
function upload(
  file: File,
  options: {
    listId: string;
    updateExisting: boolean;
    sendConfirmation: boolean;
    markConfirmed: boolean;
    htmlEmail: boolean;
    mapping: Record<string, string | number | null>;
  },
  progress: (sent: number, total: number) => void,
): Promise<ImportResult> {
  const query = new URLSearchParams({
    update_existing: String(options.updateExisting),
    send_confirmation: String(options.sendConfirmation),
    mark_confirmed: String(options.markConfirmed),
    html_email: String(options.htmlEmail),
    columns: JSON.stringify(options.mapping),
  });
  if (options.listId) query.set('list_id', options.listId);
  const body = new FormData();
  body.append('file', file, file.name);
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/v2/subscribers/import?${query}`);
    const key = session.key();
    if (key) xhr.setRequestHeader('php-auth-pw', key);
    xhr.upload.onprogress = (e) => progress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.upload.onload = () => progress(1, 1);
    xhr.onerror = () => reject(new ApiError(0, 'The upload failed: the service cannot be reached.'));
    xhr.onload = () => {
      let body: { message?: string; errors?: Record<string, string[]> } & Partial<ImportResult> = {};
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON: the status says enough */
      }
      if (xhr.status === 200) return resolve(body as ImportResult);
      const field = body.errors && Object.entries(body.errors)[0];
      reject(new ApiError(xhr.status, field ? `${field[0]}: ${field[1].join(' ')}` : (body.message ?? `The service answered ${xhr.status}.`)));
    };
    xhr.send(body);
  });
}

/** The report CSV: fetched with the session's key (a plain link would not send it), then saved by the browser. */
function ReportDownload({ url, rows }: { url: string; rows: number }) {
  const [error, setError] = useState<string | null>(null);
  const download = async () => {
    setError(null);
    try {
      const blob = await fetchBlob(url);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(blob);
      link.download = 'import-report.csv';
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <div className="stack">
      <p>
        {rows.toLocaleString('en')} {rows === 1 ? 'row' : 'rows'} did not create a subscriber: rejected, twice in the file, or already a subscriber.
        The report lists each as it was in the file, with its line and why.
      </p>
      <div>
        <button type="button" className="button" onClick={() => void download()}>
          Download the report (CSV)
        </button>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
    </div>
  );
}
