import { useEffect, useId, useImperativeHandle, type Ref } from 'react';
import { EditorContent, useEditor, useEditorState } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import type { BodyEditorHandle } from './handle';

/*
 * Rich text: TipTap (ProseMirror) with its starter kit — paragraphs, headings, lists, quotes, emphasis, links. It
 * reads and writes HTML, which is what is sent. Loaded only when this format is open (its own chunk).
 */

interface Props {
  html: string;
  onChange: (html: string) => void;
  readOnly: boolean;
  ref?: Ref<BodyEditorHandle>;
}

export default function RichTextEditor({ html, onChange, readOnly, ref }: Props) {
  const labelId = useId();
  const editor = useEditor({
    extensions: [StarterKit.configure({ heading: { levels: [1, 2, 3] }, link: { openOnClick: false, autolink: true } })],
    content: html,
    editable: !readOnly,
    editorProps: {
      attributes: { 'aria-labelledby': labelId, 'aria-multiline': 'true', role: 'textbox', class: 'richtext-content' },
    },
    onUpdate: ({ editor: e }) => onChange(e.getHTML()),
  });
  const active = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      bold: e?.isActive('bold') ?? false,
      italic: e?.isActive('italic') ?? false,
      h2: e?.isActive('heading', { level: 2 }) ?? false,
      h3: e?.isActive('heading', { level: 3 }) ?? false,
      bullets: e?.isActive('bulletList') ?? false,
      numbers: e?.isActive('orderedList') ?? false,
      quote: e?.isActive('blockquote') ?? false,
      link: e?.isActive('link') ?? false,
    }),
  });

  useEffect(() => {
    editor?.setEditable(!readOnly);
  }, [editor, readOnly]);

  useImperativeHandle(
    ref,
    () => ({
      insert(text: string) {
        editor?.chain().focus().insertContent(text).run();
      },
    }),
    [editor],
  );

  const link = () => {
    if (!editor) return;
    const current = (editor.getAttributes('link').href as string | undefined) ?? 'https://';
    const href = window.prompt('Link address (empty removes the link)', current);
    if (href === null) return;
    if (href.trim() === '') editor.chain().focus().extendMarkRange('link').unsetLink().run();
    else editor.chain().focus().extendMarkRange('link').setLink({ href: href.trim() }).run();
  };

  const tools: { label: string; on: boolean | undefined; run: () => void; keys?: string }[] = editor
    ? [
        { label: 'Bold', on: active?.bold, run: () => editor.chain().focus().toggleBold().run(), keys: 'Control+B' },
        { label: 'Italic', on: active?.italic, run: () => editor.chain().focus().toggleItalic().run(), keys: 'Control+I' },
        { label: 'Heading', on: active?.h2, run: () => editor.chain().focus().toggleHeading({ level: 2 }).run() },
        { label: 'Subheading', on: active?.h3, run: () => editor.chain().focus().toggleHeading({ level: 3 }).run() },
        { label: 'Bullets', on: active?.bullets, run: () => editor.chain().focus().toggleBulletList().run() },
        { label: 'Numbers', on: active?.numbers, run: () => editor.chain().focus().toggleOrderedList().run() },
        { label: 'Quote', on: active?.quote, run: () => editor.chain().focus().toggleBlockquote().run() },
        { label: 'Link…', on: active?.link, run: link },
      ]
    : [];

  return (
    <div className="richtext">
      <div id={labelId} className="code-editor-label">
        Body (rich text)
      </div>
      {!readOnly && (
        <div className="toolbar" role="toolbar" aria-label="Formatting">
          {tools.map((tool) => (
            <button
              key={tool.label}
              type="button"
              className="button small-button"
              aria-pressed={tool.label === 'Link…' ? undefined : Boolean(tool.on)}
              aria-keyshortcuts={tool.keys}
              onMouseDown={(e) => e.preventDefault()}
              onClick={tool.run}
            >
              {tool.label}
            </button>
          ))}
        </div>
      )}
      <EditorContent editor={editor} className="richtext-box" />
    </div>
  );
}
