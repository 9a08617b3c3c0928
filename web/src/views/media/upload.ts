import { ApiError, session } from '../../api/client';
import type { MediaItem } from '../../api/types';

/** Bytes as a person reads them. */
export const formatSize = (bytes: number) =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The address's path: the console loads images from its own origin, whatever PUBLIC_URL says. */
export const localPath = (url: string) => new URL(url, location.href).pathname;

/**
 * Uploads one image with XMLHttpRequest, because fetch reports no upload progress. The path and answer are those of
 * the OpenAPI operation uploadMedia.
 */
export function uploadMedia(file: File, onProgress: (fraction: number) => void): Promise<MediaItem> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/v2/media');
    const key = session.key();
    if (key) xhr.setRequestHeader('php-auth-pw', key);
    xhr.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    xhr.onload = () => {
      let body: { message?: string; errors?: Record<string, string[]> } & Partial<MediaItem> = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        /* not JSON: the status says enough */
      }
      if (xhr.status === 201) return resolve(body as MediaItem);
      const field = body.errors ? Object.values(body.errors)[0]?.join(' ') : undefined;
      reject(new ApiError(xhr.status, `${file.name}: ${field ?? body.message ?? `the service answered ${xhr.status}.`}`));
    };
    xhr.onerror = () => reject(new ApiError(0, 'The upload was interrupted. Check your connection and try again.'));
    const form = new FormData();
    form.append('file', file);
    xhr.send(form);
  });
}
