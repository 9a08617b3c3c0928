/** What the campaign view can do with whichever body editor is open: insert a placeholder, jump to a line (code only). */
export interface BodyEditorHandle {
  insert(text: string): void;
  goToLine?(line: number): void;
}
