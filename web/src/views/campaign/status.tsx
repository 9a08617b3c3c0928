import type { ApiError } from '../../api/client';

/** The campaign statuses (reference §7.1) in the words the console uses. */
export const STATUS_LABELS: Record<string, string> = {
  draft: 'Draft',
  submitted: 'Queued to send',
  prepared: 'Prepared',
  inprocess: 'Sending',
  suspended: 'Paused',
  requeued: 'Requeued',
  sent: 'Sent',
};

export const STATUS_ORDER = ['draft', 'submitted', 'prepared', 'inprocess', 'suspended', 'requeued', 'sent'] as const;

const TONE: Record<string, string> = { sent: 'good', inprocess: 'info', submitted: 'info', prepared: 'info', suspended: 'warn' };

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge ${TONE[status] ?? ''}`}>{STATUS_LABELS[status] ?? status}</span>;
}

/** Whether the status machine lets a campaign be deleted (campaign.service: not while it is being sent). */
export const canDelete = (status: string) => status !== 'inprocess';
/** Content can change until the campaign is being sent or sent (campaign.service LOCKED_STATUSES). */
export const canEdit = (status: string) => status !== 'inprocess' && status !== 'sent';

/**
 * A 409 of the campaigns API in words a person can act on; the API's own message stays as the detail. Other
 * failures keep the API's message.
 */
export function explainConflict(error: ApiError, action: 'delete' | 'save' | 'attach'): string {
  if (error.status !== 409) return error.message;
  if (action === 'delete') {
    return `This campaign cannot be deleted right now: it is being sent. Pause it on its Send page first, then delete it. (${error.message})`;
  }
  if (action === 'save') {
    return `Your changes were not saved: this campaign is being sent or has been sent, so its content is fixed. Copy it to make a new draft with these contents. (${error.message})`;
  }
  return `The attachment was not added: ${error.message}`;
}

/** `12.5%` of `part` in `whole`, or an em dash when nothing was sent. */
export function rate(part: number, whole: number): string {
  if (whole <= 0) return '—';
  return `${((part / whole) * 100).toLocaleString('en', { maximumFractionDigits: 1 })}%`;
}
