import { useRef, useState, type FormEvent } from 'react';
import { api, ApiError, session, unwrap } from '../../api/client';
import type { Attachment } from '../../api/types';
import { useApi } from '../../api/useApi';
import { ErrorState, Loading, Notice } from '../../ui/kit';

const size = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * Uploads with XMLHttpRequest because fetch reports no upload progress; the generated client is used for the rest.
 * The path and answer are those of the OpenAPI operation uploadAttachment.
 */
function upload(campaignId: number, file: File, description: string, onProgress: (fraction: number) => void): Promise<Attachment> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/v2/campaigns/${campaignId}/attachments`);
    const key = session.key();
    if (key) xhr.setRequestHeader('php-auth-pw', key);
    xhr.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    xhr.onload = () => {
      let body: { message?: string } & Partial<Attachment> = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        /* not JSON: the status says enough */
      }
      if (xhr.status === 201) resolve(body as Attachment);
      else reject(new ApiError(xhr.status, body.message ?? `The service answered ${xhr.status}.`));
    };
    xhr.onerror = () => reject(new ApiError(0, 'The upload was interrupted. Check your connection and try again.'));
    const form = new FormData();
    if (description) form.append('description', description);
    form.append('file', file);
    xhr.send(form);
  });
}

export function AttachmentsPanel({ campaignId, editable }: { campaignId: number; editable: boolean }) {
  const list = useApi(
    () => unwrap(api.GET('/api/v2/campaigns/{messageId}/attachments', { params: { path: { messageId: campaignId } } })),
    [campaignId],
  );
  const [progress, setProgress] = useState<number | null>(null);
  const [message, setMessage] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);
  const [description, setDescription] = useState('');
  const fileInput = useRef<HTMLInputElement>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const file = fileInput.current?.files?.[0];
    if (!file) return;
    setMessage(null);
    setProgress(0);
    try {
      const added = await upload(campaignId, file, description, setProgress);
      setMessage({ kind: 'success', text: `${added.filename} (${size(added.size)}) is attached.` });
      setDescription('');
      if (fileInput.current) fileInput.current.value = '';
      list.reload();
    } catch (err) {
      setMessage({ kind: 'error', text: (err as Error).message });
    } finally {
      setProgress(null);
    }
  };

  const remove = async (attachment: Attachment) => {
    setMessage(null);
    try {
      await unwrap(
        api.DELETE('/api/v2/campaigns/{messageId}/attachments/{attachmentId}', {
          params: { path: { messageId: campaignId, attachmentId: attachment.id } },
        }),
      );
      setMessage({ kind: 'success', text: `${attachment.filename} was removed.` });
      list.reload();
    } catch (err) {
      setMessage({ kind: 'error', text: (err as Error).message });
    }
  };

  return (
    <section className="card stack" aria-labelledby="attachments-title" data-testid="attachments">
      <h2 id="attachments-title">Attachments</h2>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {list.status === 'error' ? (
        <ErrorState error={list.error} retry={list.reload} />
      ) : !list.data ? (
        <Loading />
      ) : list.data.length === 0 ? (
        <p className="muted">No files attached.</p>
      ) : (
        <ul className="plain attachment-list">
          {list.data.map((a) => (
            <li key={a.id}>
              <span>
                <strong>{a.filename}</strong>{' '}
                <span className="muted">
                  {size(a.size)} · {a.mime_type}
                </span>
                {a.description && <span className="muted"> — {a.description}</span>}
              </span>
              {editable && (
                <button type="button" className="button subtle danger" onClick={() => void remove(a)} aria-label={`Remove ${a.filename}`}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {editable && (
        <form className="stack" onSubmit={(e) => void submit(e)}>
          <div className="row">
            <label>
              File
              <input ref={fileInput} type="file" required />
            </label>
            <label>
              Description (optional)
              <input value={description} onChange={(e) => setDescription(e.target.value)} />
            </label>
            <button type="submit" className="button" disabled={progress !== null}>
              Upload
            </button>
          </div>
          {progress !== null && (
            <label>
              Uploading… {Math.round(progress * 100)}%
              <progress max={1} value={progress} />
            </label>
          )}
        </form>
      )}
    </section>
  );
}
