import { useCallback, useRef, useState, type ReactNode } from 'react';
import { MediaPicker, type PickedMedia } from './MediaPicker';

/**
 * The media library as a function for editors that ask for an image (the visual editor's image block): calling it
 * opens the picker and resolves with the image chosen, or null when the dialog is closed. Render the returned
 * element once beside the editor.
 */
export function useImagePicker(): [() => Promise<PickedMedia | null>, ReactNode] {
  const [open, setOpen] = useState(false);
  const settle = useRef<((picked: PickedMedia | null) => void) | null>(null);
  const pick = useCallback(
    () =>
      new Promise<PickedMedia | null>((resolve) => {
        settle.current?.(null); // a picker still open for an earlier block answers "nothing" first
        settle.current = resolve;
        setOpen(true);
      }),
    [],
  );
  const finish = (picked: PickedMedia | null) => {
    settle.current?.(picked);
    settle.current = null;
    setOpen(false);
  };
  return [pick, <MediaPicker key="media-picker" open={open} onPick={finish} onClose={() => finish(null)} />];
}
