import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { MediaItem } from '../api/types';
import { ConfirmDialog, Empty, ErrorState, Loading, Notice, PageHeader } from '../ui/kit';
import { useMediaLibrary } from './media/library';
import { formatSize, localPath } from './media/upload';
import { UploadZone } from './media/UploadZone';
import './media/media.css';

/** Where an image is used, as the card says it. */
function usedBy(item: MediaItem): string {
  if (item.used_by.length === 0) return 'Not used';
  return `Used by ${item.used_by.map((u) => `${u.kind} “${u.name}”`).join(', ')}`;
}

/** The media library (issue 26): upload, copy an image's address, delete the unused ones. */
export default function Media() {
  const library = useMediaLibrary();
  const [deleting, setDeleting] = useState<MediaItem | null>(null);
  const [notice, setNotice] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  const copy = async (item: MediaItem) => {
    try {
      await navigator.clipboard.writeText(item.url);
      setNotice({ kind: 'success', text: `The address of ${item.filename} is copied.` });
    } catch {
      setNotice({ kind: 'error', text: `The clipboard cannot be written here; the address is ${item.url}` });
    }
  };

  return (
    <>
      <PageHeader title="Media" />
      <section className="card stack" aria-labelledby="upload-title">
        <h2 id="upload-title">Upload</h2>
        <UploadZone onUploaded={library.added} />
      </section>
      <section className="card stack" aria-labelledby="library-title">
        <h2 id="library-title">Images {library.items && <span className="muted">({library.total.toLocaleString('en')})</span>}</h2>
        {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
        {library.error ? (
          <ErrorState error={library.error} retry={library.reload} />
        ) : !library.items ? (
          <Loading />
        ) : library.items.length === 0 ? (
          <Empty title="No images yet">Upload the images your campaigns and templates show; they are served from this service.</Empty>
        ) : (
          <ul className="media-grid" aria-label="Images">
            {library.items.map((item) => (
              <li key={item.id} className="media-card">
                <img src={localPath(item.thumbnail_url)} alt={item.alt || item.filename} loading="lazy" />
                <div className="media-meta">
                  <strong className="break">{item.filename}</strong>
                  <span className="muted">
                    {item.width} × {item.height} · {formatSize(item.size)}
                  </span>
                  <span className="muted break">{usedBy(item)}</span>
                </div>
                <div className="media-actions">
                  <button type="button" className="button" onClick={() => void copy(item)} aria-label={`Copy the address of ${item.filename}`}>
                    Copy URL
                  </button>
                  <button
                    type="button"
                    className="button danger"
                    disabled={item.used_by.length > 0}
                    title={item.used_by.length > 0 ? 'Remove it from what uses it first' : undefined}
                    onClick={() => setDeleting(item)}
                    aria-label={`Delete ${item.filename}`}
                  >
                    Delete
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
        {library.more && (
          <button type="button" className="button" disabled={library.loading} onClick={library.more}>
            Load more
          </button>
        )}
      </section>
      <ConfirmDialog
        title="Delete this image?"
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        confirmLabel="Delete"
        confirm={async () => {
          const target = deleting!;
          await unwrap(api.DELETE('/api/v2/media/{mediaId}', { params: { path: { mediaId: target.id } } }));
          library.removed(target.id);
          setNotice({ kind: 'success', text: `${target.filename} was deleted.` });
        }}
      >
        <p>“{deleting?.filename}” is no longer used by any campaign or template. Its address stops working. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}
