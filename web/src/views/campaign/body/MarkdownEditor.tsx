import type { Ref } from 'react';
import { marked } from 'marked';
import CodeEditor, { type CodeEditorHandle } from '../../../ui/CodeEditor';

/** Markdown in the code editor; every change is rendered to the HTML that is sent with marked (GitHub's dialect). */
export default function MarkdownEditor({
  source,
  onChange,
  readOnly,
  ref,
}: {
  source: string;
  onChange: (source: string, html: string) => void;
  readOnly: boolean;
  ref?: Ref<CodeEditorHandle>;
}) {
  return (
    <CodeEditor
      ref={ref}
      label="Body (Markdown)"
      language="text"
      minHeight="24rem"
      value={source}
      readOnly={readOnly}
      onChange={(value) => onChange(value, marked.parse(value, { async: false, gfm: true }))}
    />
  );
}
