import type { Campaign } from '../../api/types';

/** The editor's fields, as strings and flags the inputs hold; converted to the API's body on save. */
export interface CampaignForm {
  subject: string;
  fromField: string;
  replyTo: string;
  toField: string;
  sendFormat: 'html' | 'text' | 'invite';
  templateId: string;
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
    subject: '',
    fromField: '',
    replyTo: '',
    toField: '',
    sendFormat: 'html',
    templateId: '',
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
  return {
    subject: c.message_content.subject,
    fromField: c.message_options.from_field,
    replyTo: c.message_options.reply_to,
    toField: c.message_options.to_field,
    sendFormat: format === 'text' || format === 'invite' ? format : 'html',
    templateId: c.template ? String(c.template.id) : '',
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
      text: f.body,
      footer: f.footer || null,
      text_message: f.overrideText && f.sendFormat !== 'text' ? f.textMessage : null,
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

/** The segment id a `user_selection` names (`segment:<id>`), or null. */
export function segmentOf(userSelection: string): number | null {
  const match = /^\s*segment:(\d{1,10})\s*$/.exec(userSelection);
  return match ? Number(match[1]) : null;
}
