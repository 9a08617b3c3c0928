import type { Campaign } from '../../api/types';
import type { EditorFormat } from './body/formats';

/** The editor's fields, as strings and flags the inputs hold; converted to the API's body on save. */
export interface CampaignForm {
  /** What the console calls the campaign; empty: its subject (saved as the name, and following it). */
  name: string;
  subject: string;
  fromField: string;
  replyTo: string;
  toField: string;
  sendFormat: 'html' | 'text' | 'invite';
  templateId: string;
  /** The editor's format; `text` goes with `sendFormat` text (text-only mail). */
  editorFormat: EditorFormat;
  /** The format's own document (block JSON, Markdown); '' for the formats whose document is the body. */
  editorSource: string;
  /** What is sent: HTML, or the text in the text format. */
  body: string;
  /** Empty: the text part is generated from the HTML. */
  textMessage: string;
  overrideText: boolean;
  footer: string;
  sendLater: boolean;
  /** `datetime-local` value, in the browser's time zone. */
  embargo: string;
  repeatInterval: number;
  repeatUntil: string;
  requeueInterval: number;
  requeueUntil: string;
  listIds: number[];
  /**
   * phpList's `user_selection`, kept as it is: Mailroom reads `segment:<id>` there (a segment narrowing the lists, or
   * the audience without them); any other text is a phpList client's and is saved back unchanged.
   */
  userSelection: string;
}

export const INTERVALS: { minutes: number; label: string }[] = [
  { minutes: 0, label: 'Never' },
  { minutes: 60, label: 'Every hour' },
  { minutes: 1440, label: 'Every day' },
  { minutes: 10080, label: 'Every week' },
  { minutes: 20160, label: 'Every two weeks' },
  { minutes: 43200, label: 'Every 30 days' },
];

const pad = (n: number) => String(n).padStart(2, '0');

/** An instant (ISO, any offset) → `YYYY-MM-DDTHH:MM` in the browser's time zone, for a datetime-local input. */
export function toLocalInput(value: string | null | undefined): string {
  if (!value) return '';
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value (the browser's time zone) → the UTC instant the API stores, or null when empty. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function emptyForm(): CampaignForm {
  return {
    name: '',
    subject: '',
    fromField: '',
    replyTo: '',
    toField: '',
    sendFormat: 'html',
    templateId: '',
    editorFormat: 'html',
    editorSource: '',
    body: '<p>Hello [EMAIL],</p>\n\n<p></p>\n\n<p>[UNSUBSCRIBE]</p>\n',
    textMessage: '',
    overrideText: false,
    footer: '',
    sendLater: false,
    embargo: '',
    repeatInterval: 0,
    repeatUntil: '',
    requeueInterval: 0,
    requeueUntil: '',
    listIds: [],
    userSelection: '',
  };
}

export function formOf(c: Campaign, listIds: number[]): CampaignForm {
  const embargo = c.message_schedule.embargo;
  const later = embargo !== null && new Date(embargo).getTime() > Date.now();
  const format = c.message_format.send_format;
  const editor = c.message_content.editor;
  // A document another program outdated opens as what is sent: HTML (the view says why).
  const current = editor && !editor.outdated ? editor : null;
  const editorFormat: EditorFormat = format === 'text' ? 'text' : current && current.format !== 'text' ? current.format : 'html';
  return {
    // A name that is the subject is the default: shown empty, so it follows the subject when that is edited.
    name: c.message_content.name === c.message_content.subject ? '' : (c.message_content.name ?? ''),
    subject: c.message_content.subject,
    fromField: c.message_options.from_field,
    replyTo: c.message_options.reply_to,
    toField: c.message_options.to_field,
    sendFormat: format === 'text' || format === 'invite' ? format : 'html',
    templateId: c.template ? String(c.template.id) : '',
    editorFormat,
    editorSource: current && current.format === editorFormat ? (current.source ?? '') : '',
    body: c.message_content.text ?? '',
    textMessage: c.message_content.text_message ?? '',
    overrideText: Boolean(c.message_content.text_message?.trim()),
    footer: c.message_content.footer ?? '',
    sendLater: later,
    embargo: later ? toLocalInput(embargo) : '',
    repeatInterval: c.message_schedule.repeat_interval ?? 0,
    repeatUntil: toLocalInput(c.message_schedule.repeat_until),
    requeueInterval: c.message_schedule.requeue_interval ?? 0,
    requeueUntil: toLocalInput(c.message_schedule.requeue_until),
    listIds: [...listIds].sort((a, b) => a - b),
    userSelection: c.message_options.user_selection ?? '',
  };
}

/** The PUT/POST /campaigns body of a form. */
export function bodyOf(f: CampaignForm) {
  return {
    template_id: f.templateId ? Number(f.templateId) : null,
    content: {
      subject: f.subject,
      // Left empty, the name is the subject (as the API does for a new campaign).
      name: f.name.trim() || f.subject,
      text: f.body,
      footer: f.footer || null,
      text_message: f.overrideText && f.sendFormat !== 'text' ? f.textMessage : null,
      editor: { format: f.editorFormat, source: f.editorFormat === 'visual' || f.editorFormat === 'markdown' ? f.editorSource : null },
    },
    format: { send_format: f.sendFormat },
    schedule: {
      embargo: f.sendLater ? fromLocalInput(f.embargo) : null,
      repeat_interval: f.repeatInterval,
      repeat_until: f.repeatInterval ? fromLocalInput(f.repeatUntil) : null,
      requeue_interval: f.requeueInterval,
      requeue_until: f.requeueInterval ? fromLocalInput(f.requeueUntil) : null,
    },
    options: { from_field: f.fromField, reply_to: f.replyTo || null, to_field: f.toField || null, user_selection: f.userSelection || null },
  };
}

export const sameForm = (a: CampaignForm, b: CampaignForm) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Why the campaign opens in another format than it was written in: another program (a phpList client) replaced the
 * body since, so the editor's document no longer matches what is sent. Null when it opens as written.
 */
export function outdatedNote(c: Campaign | null): string | null {
  const editor = c?.message_content.editor;
  if (!editor?.outdated || editor.format === 'html' || editor.format === 'text') return null;
  const name = { visual: 'visual', richtext: 'rich text', markdown: 'Markdown' }[editor.format];
  return `This campaign was written here in the ${name} format, then changed by another program. It opens as HTML, which is what is sent now; switch the format to convert it again.`;
}

/** The segment id a `user_selection` names (`segment:<id>`), or null. */
export function segmentOf(userSelection: string): number | null {
  const match = /^\s*segment:(\d{1,10})\s*$/.exec(userSelection);
  return match ? Number(match[1]) : null;
}
