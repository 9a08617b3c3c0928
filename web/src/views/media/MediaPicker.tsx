import { useState } from 'react';
import type { MediaItem } from '../../api/types';
import { Dialog, Empty, ErrorState, Loading } from '../../ui/kit';
import { useMediaLibrary } from './library';
import { localPath } from './upload';
import { UploadZone } from './UploadZone';
import './media.css';

export interface PickedMedia {
  url: string;
  alt?: string;
  width?: number;
  height?: number;
}

const attribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The `<img>` an HTML editor inserts for a picked image: its address, alt text and size as attributes. */
export function imageTag(m: PickedMedia): string {
  const size = m.width && m.height ? ` width="${m.width}" height="${m.height}"` : '';
  return `<img src="${attribute(m.url)}" alt="${attribute(m.alt ?? '')}"${size} style="max-width: 100%; height: auto;">`;
}

/**
 * A dialog to choose an image of the media library, or upload one and choose it: what the campaign editor opens to
 * insert an image. Each image is a button (Tab and Enter, or a click, pick it); Escape closes.
 */
export function MediaPicker({ open, onPick, onClose }: { open: boolean; onPick(m: PickedMedia): void; onClose(): void }) {
  return (
    <Dialog title="Choose an image" open={open} onClose={onClose}>
      <PickerBody onPick={onPick} onClose={onClose} />
    </Dialog>
  );
}

/** Mounted only while the dialog is open, so the library is read fresh each time. */
function PickerBody({ onPick, onClose }: { onPick(m: PickedMedia): void; onClose(): void }) {
  const library = useMediaLibrary();
  const [alt, setAlt] = useState('');
  const pick = (item: MediaItem) => onPick({ url: item.url, alt: alt.trim() || item.alt || undefined, width: item.width, height: item.height });

  return (
    <div className="dialog-body stack media-picker">
      <UploadZone onUploaded={library.added} />
      <label>
        Alternative text <span className="muted">(read aloud and shown when images are off)</span>
        <input value={alt} maxLength={500} onChange={(event) => setAlt(event.target.value)} />
      </label>
      {library.error ? (
        <ErrorState error={library.error} retry={library.reload} />
      ) : !library.items ? (
        <Loading />
      ) : library.items.length === 0 ? (
        <Empty title="No images yet">Upload one above.</Empty>
      ) : (
        <ul className="media-grid compact" aria-label="Images">
          {library.items.map((item) => (
            <li key={item.id}>
              <button
                type="button"
                className="media-choice"
                onClick={() => pick(item)}
                aria-label={`Insert ${item.filename}, ${item.width} × ${item.height}`}
              >
                <img src={localPath(item.thumbnail_url)} alt="" loading="lazy" />
                <span className="break">{item.filename}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {library.more && (
        <button type="button" className="button" disabled={library.loading} onClick={library.more}>
          Load more
        </button>
      )}
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </div>
  );
}
