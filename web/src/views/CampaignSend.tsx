import { nameOf } from './campaign/name';
import { segmentOf } from './campaign/form';
import { useRef, useState } from 'react';
import { api, ApiError, unwrap } from '../api/client';
import type { Campaign, CampaignStats } from '../api/types';
import { useApi } from '../api/useApi';
import { Link } from '../router';
import { ErrorState, Loading, Notice, PageHeader, useAction, formatCount as n } from '../ui/kit';
import { formatDateTime } from '../ui/dates';
import { usePoll } from '../ui/poll';
import './campaign/campaign.css';

/** The page asks for fresh figures this often while a send is under way (the brief: at least every 2 s). */
const POLL_MS = 1500;
/** The current rate is measured over this much of the latest figures. */
const RATE_WINDOW_MS = 20_000;
const SENDING = new Set(['submitted', 'prepared', 'inprocess', 'requeued']);

/**
 * Sending a campaign: a draft first shows whom it goes to and asks; once handed to the sender the page shows the
 * live progress (polling the campaign and its counters), with pause, resume and, at the end, retry of failures.
 */
export default function CampaignSend({ id }: { id: number }) {
  const campaign = useApi(() => unwrap(api.GET('/api/v2/campaigns/{messageId}', { params: { path: { messageId: id } } })), [id]);
  if (campaign.status === 'error') return <ErrorState error={campaign.error} retry={campaign.reload} />;
  if (!campaign.data) return <Loading />;
  const c = campaign.data;
  const back = { to: `campaigns/${id}`, label: nameOf(c) };
  if (c.message_metadata.status === 'draft') return <Confirm campaign={c} back={back} onSent={campaign.reload} />;
  return <Progress initial={c} back={back} />;
}

function Confirm({ campaign, back, onSent }: { campaign: Campaign; back: { to: string; label: string }; onSent: () => void }) {
  const id = campaign.id;
  const audience = useApi(() => unwrap(api.GET('/api/v2/campaigns/{messageId}/audience', { params: { path: { messageId: id } } })), [id]);
  const action = useAction();
  const embargo = campaign.message_schedule.embargo;
  const segment = segmentOf(campaign.message_options.user_selection ?? '');
  const later = embargo !== null && new Date(embargo).getTime() > Date.now();
  const send = () =>
    action.run(async () => {
      await unwrap(api.POST('/api/v2/campaigns/{messageId}/send', { params: { path: { messageId: id } } }));
      onSent();
    });
  return (
    <>
      <PageHeader title="Send campaign" back={back} />
      <section className="card stack" aria-labelledby="confirm-title">
        <h2 id="confirm-title">{nameOf(campaign)}</h2>
        {audience.status === 'error' ? (
          <ErrorState error={audience.error} retry={audience.reload} />
        ) : !audience.data ? (
          <Loading label="Counting recipients…" />
        ) : (
          <>
            <p className="lead" data-testid="audience">
              This sends the campaign to <strong>{n(audience.data.count)}</strong> {audience.data.count === 1 ? 'recipient' : 'recipients'}
              {segment === null
                ? ` on ${n(audience.data.lists)} ${audience.data.lists === 1 ? 'list' : 'lists'}`
                : audience.data.lists > 0
                  ? ` on ${n(audience.data.lists)} ${audience.data.lists === 1 ? 'list' : 'lists'}, narrowed by segment ${segment}`
                  : ` matched by segment ${segment}`}
              {later ? `, from ${formatDateTime(embargo)}` : ', starting now'}.
            </p>
            {audience.data.text_only !== null && audience.data.text_only > 0 && (
              <Notice kind="info">
                <span data-testid="text-only">{textOnlySentence(audience.data.text_only, audience.data.count)}</span>
              </Notice>
            )}
            <p className="muted">
              Counted now: the confirmed {segment === null ? 'members of the campaign’s lists' : 'subscribers it would go to'} who are not
              blacklisted, each once. People who join or leave before it goes out change the final number. Sending cannot be undone, but it can be
              paused.
            </p>
            {audience.data.count === 0 && <Notice kind="error">Nobody would receive it: add a list with confirmed members first.</Notice>}
            {action.error && <Notice kind="error">{action.error}</Notice>}
            <div className="row">
              <button type="button" className="button primary" disabled={action.busy || audience.data.count === 0} onClick={() => void send()}>
                Send to {n(audience.data.count)} {audience.data.count === 1 ? 'recipient' : 'recipients'}
              </button>
              <Link className="button" to={back.to}>
                Cancel
              </Link>
            </div>
          </>
        )}
      </section>
    </>
  );
}

interface Sample {
  at: number;
  done: number;
}

function Progress({ initial, back }: { initial: Campaign; back: { to: string; label: string } }) {
  const id = initial.id;
  const [campaign, setCampaign] = useState(initial);
  const [stats, setStats] = useState<CampaignStats | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const samples = useRef<Sample[]>([]);
  const action = useAction();
  const status = campaign.message_metadata.status;

  const refresh = async () => {
    try {
      const path = { params: { path: { messageId: id } } };
      const [c, s] = await Promise.all([
        unwrap(api.GET('/api/v2/campaigns/{messageId}', path)),
        unwrap(api.GET('/api/v2/campaigns/{messageId}/stats', path)),
      ]);
      const at = Date.now();
      const done = s.deliveries.sent + s.deliveries.failed + s.deliveries.skipped;
      samples.current = [...samples.current.filter((x) => x.at >= at - RATE_WINDOW_MS), { at, done }];
      setCampaign(c);
      setStats(s);
      setError(null);
    } catch (err) {
      setError(err instanceof ApiError ? err : new ApiError(0, String(err)));
    }
  };
  // The campaign and its figures are two reads that can straddle the moment the sender marks the campaign sent: the
  // campaign may already say `sent` while the figures, read a moment before, still say the send is in progress. Only
  // when both say it is over is it over (`finished` below); until then the page keeps asking.
  const finished = isFinished(status, stats);
  // Finished, or paused with nothing left in flight: polling stops until an action (resume, retry) starts it again.
  const active = !stats || stats.deliveries.sending > 0 || SENDING.has(status) || (status === 'sent' && !finished);
  usePoll(refresh, POLL_MS, active);

  const changeStatus = (to: 'suspended' | 'submitted') =>
    action.run(async () => {
      const updated = await unwrap(api.PATCH('/api/v2/campaigns/{messageId}/status', { params: { path: { messageId: id } }, body: { status: to } }));
      setCampaign(updated);
      setNotice(to === 'suspended' ? 'Paused: no further mail goes out until you resume.' : 'Resumed: sending goes on.');
      samples.current = [];
      await refresh();
    });
  const retry = () =>
    action.run(async () => {
      const { requeued } = await unwrap(api.POST('/api/v2/campaigns/{messageId}/retry-failed', { params: { path: { messageId: id } } }));
      setNotice(`${n(requeued)} failed ${requeued === 1 ? 'delivery' : 'deliveries'} queued again.`);
      samples.current = [];
      await refresh();
    });

  if (!stats) return error ? <ErrorState error={error} retry={() => void refresh()} /> : <Loading />;
  const d = stats.deliveries;
  const total = d.queued + d.sending + d.sent + d.failed + d.skipped;
  const done = d.sent + d.failed + d.skipped;
  const rate = currentRate(samples.current);
  const remaining = d.queued + d.sending;
  const percent = total > 0 ? Math.floor((done / total) * 100) : finished ? 100 : 0;
  const share = (x: number) => `${total > 0 ? (x / total) * 100 : 0}%`;
  return (
    <>
      <PageHeader title={`${finished ? 'Sent' : status === 'suspended' ? 'Paused' : 'Sending'}: ${nameOf(campaign)}`} back={back}>
        {SENDING.has(status) && (
          <button type="button" className="button" disabled={action.busy} onClick={() => void changeStatus('suspended')}>
            Pause
          </button>
        )}
        {status === 'suspended' && (
          <button type="button" className="button primary" disabled={action.busy} onClick={() => void changeStatus('submitted')}>
            Resume
          </button>
        )}
        {finished && d.failed > 0 && (
          <button type="button" className="button primary" disabled={action.busy} onClick={() => void retry()}>
            Retry {n(d.failed)} failed
          </button>
        )}
      </PageHeader>
      {error && <Notice kind="error">The latest figures could not be read: {error.message}</Notice>}
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {notice && <Notice kind="success">{notice}</Notice>}
      <section className="card stack" aria-labelledby="progress-title">
        <div className="section-title">
          <h2 id="progress-title">Progress</h2>
          <span
            className={`badge ${finished ? (stats.outcome.result === 'sent' ? 'good' : 'bad') : status === 'suspended' ? 'bad' : ''}`}
            data-testid="send-status"
            aria-live="polite"
          >
            {statusText(status, finished, stats)}
          </span>
        </div>
        <div
          className="meter"
          role="progressbar"
          aria-label="Deliveries done"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
          aria-valuetext={`${percent}% done: ${n(done)} of ${n(total)}`}
        >
          <span className="meter-sent" style={{ width: share(d.sent) }} />
          <span className="meter-failed" style={{ width: share(d.failed) }} />
          <span className="meter-skipped" style={{ width: share(d.skipped) }} />
          <span className="meter-sending" style={{ width: share(d.sending) }} />
        </div>
        <p className="muted">
          {n(done)} of {n(total)} done ({percent}%)
        </p>
        <dl className="figures" data-testid="figures">
          <Figure label="Queued" value={d.queued} />
          <Figure label="Sending" value={d.sending} />
          <Figure label="Sent" value={d.sent} tone="good" />
          <Figure label="Failed" value={d.failed} tone={d.failed > 0 ? 'bad' : undefined} />
          <Figure label="Skipped" value={d.skipped} />
        </dl>
        <dl className="facts">
          <dt>Current rate</dt>
          <dd data-testid="rate">{SENDING.has(status) && rate !== null ? `${rate.toFixed(rate < 10 ? 1 : 0)} mails/s` : '—'}</dd>
          <dt>Time left</dt>
          <dd data-testid="eta">
            {finished ? 'none' : SENDING.has(status) && rate ? timeLeft(remaining / rate) : status === 'suspended' ? 'paused' : 'estimating…'}
          </dd>
          <dt>Started</dt>
          <dd>{formatDateTime(campaign.message_metadata.send_start)}</dd>
          {campaign.message_metadata.sent && (
            <>
              <dt>Finished</dt>
              <dd>{formatDateTime(campaign.message_metadata.sent)}</dd>
            </>
          )}
        </dl>
        {/* Server replies name addresses and hosts, long words that must wrap on a phone. */}
        {stats.sender.relay_unavailable && SENDING.has(status) && (
          <Notice kind="info">
            <span className="wrap-anywhere" data-testid="relay-unavailable">
              The mail server cannot be used: {stats.sender.relay_unavailable.reason}. Sending waits without using up any delivery&apos;s attempts and
              resumes by itself when the server answers; next try at {formatDateTime(stats.sender.relay_unavailable.retry_at)}.
            </span>
          </Notice>
        )}
        {stats.sender.paused_reason && (
          <Notice kind="error">
            <span className="wrap-anywhere">The sender paused this campaign: {stats.sender.paused_reason}</span>
          </Notice>
        )}
        {finished && stats.outcome.reason && (
          <Notice kind="error">
            <span className="wrap-anywhere">Latest failure: {stats.outcome.reason}</span>
          </Notice>
        )}
        <p className="row">
          <Link to={`campaigns/${id}/deliveries`}>Deliveries, one by one</Link>
          <Link to={`campaigns/${id}/report`}>Report: opens and clicks</Link>
        </p>
      </section>
    </>
  );
}

function Figure({ label, value, tone }: { label: string; value: number; tone?: 'good' | 'bad' }) {
  return (
    <div className={`figure ${tone ?? ''}`}>
      <dt>{label}</dt>
      <dd>{n(value)}</dd>
    </div>
  );
}

/** Who of the audience gets an HTML campaign as its text part only, and why. */
function textOnlySentence(textOnly: number, count: number): string {
  const who =
    textOnly >= count ? (count === 1 ? 'The recipient gets' : `All ${n(count)} get`) : `${n(textOnly)} of them ${textOnly === 1 ? 'gets' : 'get'}`;
  return `${who} the text version only: they are set to plain-text mail (“Prefers HTML mail” on a subscriber’s page changes it).`;
}

/**
 * The send is over once the campaign says `sent` and its figures, which carry their own reading of the status, say so
 * too (an outcome other than `in progress`, nothing queued or in flight).
 */
function isFinished(status: string, stats: CampaignStats | null): boolean {
  if (status !== 'sent' || !stats) return false;
  return stats.outcome.result !== 'in progress' && stats.deliveries.queued + stats.deliveries.sending === 0;
}

/** Mails finished per second over the latest samples, or null before there are two of them a second apart. */
function currentRate(samples: Sample[]): number | null {
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last || last.at - first.at < 1000) return null;
  return Math.max(0, ((last.done - first.done) * 1000) / (last.at - first.at));
}

function timeLeft(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'estimating…';
  if (seconds < 60) return `about ${Math.max(1, Math.round(seconds))} s`;
  if (seconds < 3600) return `about ${Math.round(seconds / 60)} min`;
  return `about ${(seconds / 3600).toFixed(1)} h`;
}

function statusText(status: string, finished: boolean, stats: CampaignStats): string {
  if (finished) return stats.outcome.result === 'sent' ? 'Sent' : `Sent: ${stats.outcome.result}`;
  switch (status) {
    case 'submitted':
      return 'Waiting to start';
    case 'prepared':
      return 'Preparing the recipients';
    case 'inprocess':
    case 'requeued':
      return stats.sender.relay_unavailable ? 'Waiting for the mail server' : 'Sending';
    case 'suspended':
      return 'Paused';
    case 'sent':
      return 'Finishing';
    default:
      return status;
  }
}
