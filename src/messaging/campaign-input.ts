import { ValidationError } from '../shared/errors.js';
import type { CampaignEditorDocument } from '../db/schema/index.js';
import { EDITOR_FORMATS_WITH_SOURCE, type CampaignBody } from './campaign.schemas.js';
import type { CampaignRow, NewCampaignRow } from './campaign.repository.js';

/*
 * Reading a campaign body into columns: the rules the schema cannot express (dates, addresses), each failure a
 * 422 naming the field as the request spells it.
 */

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** An ISO 8601 date or date-time; without an offset it is read as UTC. */
export function parseDateTime(value: string, field: string): Date {
  const text = value.trim();
  if (!ISO_DATE_TIME.test(text)) throw ValidationError.field(field, `"${value}" is not a valid date-time (ISO 8601 expected).`);
  const hasZone = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i.test(text) && /[T ]/.test(text);
  let normalised = text.replace(' ', 'T');
  if (!/[T]/.test(normalised)) normalised += 'T00:00:00';
  const date = new Date(hasZone ? normalised : `${normalised}Z`);
  if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1970 || date.getUTCFullYear() > 9999) {
    throw ValidationError.field(field, `"${value}" is not a valid date-time (ISO 8601 expected).`);
  }
  return date;
}

const ADDRESS = /^[^\s@<>(),;:"[\]]+@[^\s@<>(),;:"[\]]+\.[^\s@<>(),;:"[\]]+$/;

/** `addr@example.com` or `Name <addr@example.com>`; answers it normalised. */
export function checkFromField(value: string, field = 'options.from_field'): string {
  const text = value.trim();
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(text);
  const address = named ? named[2]!.trim() : text;
  if (!ADDRESS.test(address) || /[\r\n]/.test(text)) {
    throw ValidationError.field(field, 'This value is not a valid email address (expected addr@example.com or Name <addr@example.com>).');
  }
  return named && named[1] ? `${named[1].trim()} <${address}>` : address;
}

/** phpList's guard: links already rewritten by click tracking must not be pasted back into a campaign. */
const TRACKED_LINK = /(?:lt\.php\?id=|\/lt\/)[A-Za-z0-9_-]{16,22}(?![A-Za-z0-9_-])/;

/** The body's columns. Dates are checked; `requeue_until` before `embargo` and similar contradictions are refused. */
export function campaignColumns(body: CampaignBody): Omit<NewCampaignRow, 'uniqueId' | 'ownerId'> {
  const errors: Record<string, string[]> = {};
  const attempt = <T>(fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof ValidationError) {
        for (const [key, messages] of Object.entries(err.errors)) errors[key] = [...(errors[key] ?? []), ...messages];
        return undefined;
      }
      throw err;
    }
  };
  if (TRACKED_LINK.test(body.content.text)) {
    errors['content.text'] = [
      'You should not paste the results of a test message back into the editor. This will break the click-track statistics, and overload the server.',
    ];
  }
  const schedule = body.schedule ?? {};
  const date = (value: string | null | undefined, field: string) =>
    value == null || value.trim() === '' ? null : attempt(() => parseDateTime(value, field));
  const embargo = date(schedule.embargo, 'schedule.embargo');
  const repeatUntil = date(schedule.repeat_until, 'schedule.repeat_until');
  const requeueUntil = date(schedule.requeue_until, 'schedule.requeue_until');
  const fromField = attempt(() => checkFromField(body.options.from_field));
  const replyTo = body.options.reply_to?.trim() ? attempt(() => checkFromField(body.options.reply_to!, 'options.reply_to')) : '';
  const editorError = body.content.editor ? editorProblem(body.content.editor, body.format.send_format) : null;
  if (editorError) errors['content.editor'] = [editorError];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  const sendFormat = body.format.send_format;
  return {
    templateId: body.template_id ?? null,
    subject: body.content.subject.trim(),
    // Left out: the caller decides (a new campaign takes its subject, an update keeps the current name).
    ...(body.content.name === undefined ? {} : { name: body.content.name.trim() }),
    body: body.content.text,
    textBody: body.content.text_message ?? '',
    footer: body.content.footer ?? '',
    sendFormat,
    htmlFormatted: sendFormat !== 'text',
    embargo: embargo ?? new Date(),
    repeatInterval: schedule.repeat_interval ?? 0,
    repeatUntil: repeatUntil ?? null,
    requeueInterval: schedule.requeue_interval ?? 0,
    requeueUntil: requeueUntil ?? null,
    fromField: fromField!,
    toField: body.options.to_field?.trim() ?? '',
    replyTo: replyTo ?? '',
    userSelection: body.options.user_selection ?? null,
  };
}

type EditorInput = NonNullable<CampaignBody['content']['editor']>;

/** What is wrong with an editor document sent with a body, or null. */
function editorProblem(editor: EditorInput, sendFormat: CampaignBody['format']['send_format']): string | null {
  const source = editor.source ?? null;
  const withSource = (EDITOR_FORMATS_WITH_SOURCE as readonly string[]).includes(editor.format);
  if (withSource && (source === null || source.trim() === '')) return `The ${editor.format} format needs its source.`;
  if (!withSource && source !== null) return `The ${editor.format} format has no source of its own: its document is content.text.`;
  if ((editor.format === 'text') !== (sendFormat === 'text')) {
    return editor.format === 'text'
      ? 'The text format needs format.send_format "text".'
      : 'A text-only campaign (send_format "text") is written in the text format.';
  }
  if (editor.format === 'visual') {
    let document: unknown;
    try {
      document = JSON.parse(source!);
    } catch {
      return 'The visual source is not valid JSON.';
    }
    const root = typeof document === 'object' && document !== null ? (document as Record<string, unknown>).root : undefined;
    if (typeof root !== 'object' || root === null || Array.isArray(root))
      return 'The visual source is not a block document (an object with a "root" block).';
  }
  return null;
}

/**
 * The editor column for a body: the one sent, or (omitted, as a phpList client does) the campaign's current one,
 * marked outdated once the body it produced is replaced; null sent drops it.
 */
export function editorColumn(body: CampaignBody, current?: Pick<CampaignRow, 'editor' | 'body'>): CampaignEditorDocument | null {
  const sent = body.content.editor;
  if (sent) return { format: sent.format, source: sent.source ?? null, outdated: false };
  if (sent === null || !current?.editor) return null;
  return current.body === body.content.text ? current.editor : { ...current.editor, outdated: true };
}
