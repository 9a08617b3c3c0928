import { useRef, useState, type DragEvent } from 'react';
import { Notice } from '../../ui/kit';
import type { MediaItem } from '../../api/types';
import { uploadMedia } from './upload';

/**
 * Upload by button or by dropping files on the zone, one after another, with a progress bar. Only the types the
 * API accepts are offered by the file chooser; the API checks the bytes whatever is chosen or dropped.
 */
export function UploadZone({ onUploaded }: { onUploaded: (item: MediaItem) => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [progress, setProgress] = useState<{ name: string; fraction: number } | null>(null);
  const [message, setMessage] = useState<{ kind: 'success' | 'error'; text: string } | null>(null);

  const send = async (files: File[]) => {
    setMessage(null);
    const done: string[] = [];
    for (const file of files) {
      setProgress({ name: file.name, fraction: 0 });
      try {
        const item = await uploadMedia(file, (fraction) => setProgress({ name: file.name, fraction }));
        done.push(item.filename);
        onUploaded(item);
      } catch (err) {
        setMessage({ kind: 'error', text: (err as Error).message });
        break;
      }
    }
    setProgress(null);
    if (input.current) input.current.value = '';
    if (done.length > 0) setMessage((m) => m ?? { kind: 'success', text: `Uploaded ${done.join(', ')}.` });
  };

  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    void send([...event.dataTransfer.files]);
  };

  return (
    <div className="stack">
      <div
        className={`media-drop${dragging ? ' dragging' : ''}`}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
        data-testid="media-drop"
      >
        <p>
          Drop images here, or{' '}
          <button type="button" className="button primary" disabled={progress !== null} onClick={() => input.current?.click()}>
            Choose images…
          </button>
        </p>
        {/* Opened by the button above, which is what the keyboard reaches. */}
        <input
          ref={input}
          hidden
          aria-label="Images to upload"
          type="file"
          multiple
          accept="image/png,image/jpeg,image/gif,image/webp"
          disabled={progress !== null}
          onChange={(event) => void send([...(event.target.files ?? [])])}
        />
        <p className="muted">PNG, JPEG, GIF or WebP.</p>
        {progress && (
          <label className="media-progress">
            Uploading {progress.name}
            <progress max={1} value={progress.fraction} />
          </label>
        )}
      </div>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
    </div>
  );
}
