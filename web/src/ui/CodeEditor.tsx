import { useEffect, useId, useImperativeHandle, useRef, type Ref } from 'react';
import { Compartment, EditorSelection, EditorState, type Extension } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
  placeholder as placeholderText,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { html } from '@codemirror/lang-html';
import { tags } from '@lezer/highlight';
import './CodeEditor.css';

/** What a view can do with the editor besides reading `onChange`: insert a placeholder, jump to a reported line. */
export interface CodeEditorHandle {
  /** Replaces the selection (or inserts at the cursor) with `text`, leaves the cursor after it and focuses the editor. */
  insert(text: string): void;
  /** Moves the cursor to the start of line `n` (1-based, clamped to the document), scrolls it into view and focuses. */
  goToLine(n: number): void;
  focus(): void;
}

export interface CodeEditorProps {
  value: string;
  onChange: (value: string) => void;
  /** The visible label; also the editor's accessible name. */
  label: string;
  language?: 'html' | 'text';
  /** Shown in the empty editor. */
  placeholder?: string;
  readOnly?: boolean;
  /** Minimum height of the editing area, any CSS length. */
  minHeight?: string;
  /** Extra description read by screen readers (e.g. the id of a help text). */
  describedBy?: string;
  ref?: Ref<CodeEditorHandle>;
}

/*
 * Colours come from CSS variables (CodeEditor.css) so one theme follows the console's light and dark schemes, which
 * switch with prefers-color-scheme, without rebuilding the editor.
 */
const theme = EditorView.theme({
  '&': { color: 'var(--text)', backgroundColor: 'var(--surface)', fontSize: '0.9rem' },
  '.cm-content': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', caretColor: 'var(--text)' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', lineHeight: '1.5' },
  '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--text)' },
  '&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, ::selection': {
    backgroundColor: 'var(--cm-selection)',
  },
  '.cm-gutters': { backgroundColor: 'var(--bg)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine': { backgroundColor: 'var(--cm-active-line)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--cm-active-line)', color: 'var(--text)' },
  '&.cm-focused .cm-matchingBracket': { backgroundColor: 'var(--cm-selection)', outline: '1px solid var(--muted)' },
  '.cm-placeholder': { color: 'var(--muted)' },
  '&.cm-focused': { outline: 'none' },
});

const highlight = HighlightStyle.define([
  { tag: [tags.tagName, tags.angleBracket], color: 'var(--cm-tag)' },
  { tag: tags.attributeName, color: 'var(--cm-attribute)' },
  { tag: [tags.attributeValue, tags.string], color: 'var(--cm-string)' },
  { tag: [tags.comment, tags.meta], color: 'var(--cm-comment)', fontStyle: 'italic' },
  { tag: [tags.keyword, tags.atom, tags.bool], color: 'var(--cm-keyword)' },
  { tag: [tags.number, tags.unit], color: 'var(--cm-number)' },
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: 'var(--cm-attribute)' },
  { tag: tags.invalid, color: 'var(--danger)' },
]);

const languageOf = (language: 'html' | 'text'): Extension => (language === 'html' ? html() : []);

/**
 * A CodeMirror 6 editor for HTML or plain text with line numbers, undo history and syntax colours. Tab indents; as
 * CodeMirror's escape hatch, Escape then Tab moves focus on (so the editor never traps the keyboard), and the hint
 * under the editor says so. The module pulls in CodeMirror (~120 KB gzipped), so views load it lazily.
 */
export default function CodeEditor({
  value,
  onChange,
  label,
  language = 'html',
  placeholder,
  readOnly = false,
  minHeight = '16rem',
  describedBy,
  ref,
}: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  const languageSlot = useRef(new Compartment());
  const readOnlySlot = useRef(new Compartment());
  const labelId = useId();
  const hintId = useId();

  // The latest callback without rebuilding the editor on each render.
  useEffect(() => {
    changed.current = onChange;
  }, [onChange]);

  // Built once; value, language and read-only changes are applied as transactions below, keeping undo history.
  useEffect(() => {
    const parent = host.current;
    if (!parent) return;
    const editor = new EditorView({
      parent,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          history(),
          drawSelection(),
          indentOnInput(),
          bracketMatching(),
          EditorView.lineWrapping,
          syntaxHighlighting(highlight),
          theme,
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          languageSlot.current.of(languageOf(language)),
          readOnlySlot.current.of([EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)]),
          placeholder ? placeholderText(placeholder) : [],
          EditorView.contentAttributes.of({
            'aria-labelledby': labelId,
            'aria-describedby': [hintId, describedBy].filter(Boolean).join(' '),
            'aria-multiline': 'true',
          }),
          EditorView.theme({ '.cm-content, .cm-gutter': { minHeight } }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    // The scroller is a scrollable region: axe (scrollable-region-focusable) wants it reachable by keyboard, so that
    // a read-only editor, whose content takes no focus, can still be scrolled; named after the editor's label.
    editor.scrollDOM.tabIndex = 0;
    editor.scrollDOM.setAttribute('role', 'region');
    editor.scrollDOM.setAttribute('aria-labelledby', labelId);
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor is created once per mount; later prop changes are dispatched by the effects below.
  }, []);

  // A value set from outside (loading a template, uploading a file) replaces the document; typing does not loop back.
  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const current = editor.state.doc.toString();
    if (current !== value) editor.dispatch({ changes: { from: 0, to: current.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: languageSlot.current.reconfigure(languageOf(language)) });
  }, [language]);

  useEffect(() => {
    view.current?.dispatch({
      effects: readOnlySlot.current.reconfigure([EditorState.readOnly.of(readOnly), EditorView.editable.of(!readOnly)]),
    });
  }, [readOnly]);

  useImperativeHandle(
    ref,
    () => ({
      insert(text: string) {
        const editor = view.current;
        if (!editor) return;
        editor.dispatch(editor.state.replaceSelection(text), { scrollIntoView: true, userEvent: 'input' });
        editor.focus();
      },
      goToLine(n: number) {
        const editor = view.current;
        if (!editor) return;
        const doc = editor.state.doc;
        const line = doc.line(Math.min(Math.max(1, Math.floor(n) || 1), doc.lines));
        editor.dispatch({ selection: EditorSelection.cursor(line.from), scrollIntoView: true });
        editor.focus();
      },
      focus() {
        view.current?.focus();
      },
    }),
    [],
  );

  return (
    <div className="code-editor">
      {/* Not a <label>: the editing surface is a contenteditable, named through aria-labelledby; a click focuses it. */}
      <div id={labelId} className="code-editor-label" onClick={() => view.current?.focus()}>
        {label}
      </div>
      <div ref={host} className="code-editor-box" />
      <p id={hintId} className="code-editor-hint">
        Tab indents. To leave the editor with the keyboard, press Esc, then Tab.
      </p>
    </div>
  );
}
