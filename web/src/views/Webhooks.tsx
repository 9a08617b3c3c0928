import { useState, type FormEvent } from 'react';
import { api, unwrap, type ApiError } from '../api/client';
import type { paths } from '../api/schema';
import { useApi } from '../api/useApi';
import { ConfirmDialog, Empty, ErrorState, Loading, Notice, PageHeader, useAction } from '../ui/kit';
import { formatDateTime } from '../ui/dates';
import { WebhookDeliveries } from './WebhookDeliveries';
import './templates.css';

type Webhook = paths['/api/v2/webhooks']['get']['responses'][200]['content']['application/json'][number];
type EventType = paths['/api/v2/webhooks']['post']['requestBody']['content']['application/json']['events'][number];
type TestResult = paths['/api/v2/webhooks/{webhookId}/test']['post']['responses'][200]['content']['application/json'];

/**
 * The event types the API accepts (docs/api.md, "Webhooks"), in its order. A record keyed by the API's own enum, so a
 * type added to the API is a type error here until it is offered.
 */
const EVENT_ORDER: Record<EventType, number> = {
  'subscriber.created': 1,
  'subscriber.confirmed': 2,
  'subscriber.unsubscribed': 3,
  'subscriber.blacklisted': 4,
  'subscriber.updated': 5,
  'bounce.recorded': 6,
  'complaint.recorded': 7,
  'campaign.status_changed': 8,
  'campaign.finished': 9,
  'open.recorded': 10,
  'click.recorded': 11,
};
const EVENT_TYPES = (Object.keys(EVENT_ORDER) as EventType[]).sort((a, b) => EVENT_ORDER[a] - EVENT_ORDER[b]);

/** Outgoing webhooks: endpoints, their signing secret (shown once), a test ping and each endpoint's deliveries. */
export default function Webhooks() {
  const hooks = useApi(() => unwrap(api.GET('/api/v2/webhooks')), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ url: string; secret: string } | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [showing, setShowing] = useState<number | null>(null);
  const [tested, setTested] = useState<{ url: string; result: TestResult } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const acting = useAction();

  const setEnabled = (hook: Webhook, enabled: boolean) =>
    acting.run(async () => {
      await unwrap(api.PATCH('/api/v2/webhooks/{webhookId}', { params: { path: { webhookId: hook.id } }, body: { enabled } }));
      setNotice(`${hook.url} ${enabled ? 'enabled' : 'disabled'}.`);
      hooks.reload();
    });

  const sendTest = (hook: Webhook) =>
    acting.run(async () => {
      setTested(null);
      setNotice(null);
      const result = await unwrap(api.POST('/api/v2/webhooks/{webhookId}/test', { params: { path: { webhookId: hook.id } } }));
      setTested({ url: hook.url, result });
    });

  return (
    <>
      <PageHeader title="Webhooks">
        <button type="button" className="button primary" onClick={() => setCreating(true)}>
          New webhook
        </button>
      </PageHeader>
      {notice && <Notice kind="success">{notice}</Notice>}
      {acting.error && <Notice kind="error">{acting.error}</Notice>}
      {created && (
        <Notice kind="success">
          <p>Webhook {created.url} created. Its signing secret, shown only this once: copy it now to check the signatures.</p>
          <p>
            <code className="mono" aria-label="Signing secret">
              {created.secret}
            </code>
          </p>
        </Notice>
      )}
      {tested && (
        <Notice kind={tested.result.delivered ? 'success' : 'error'}>
          Test to {tested.url}:{' '}
          {tested.result.delivered
            ? `delivered, the endpoint answered ${tested.result.status}.`
            : `not delivered${tested.result.status !== null ? `, the endpoint answered ${tested.result.status}` : ''}${tested.result.error ? ` (${tested.result.error})` : ''}.`}
        </Notice>
      )}
      {creating && (
        <WebhookForm
          onCancel={() => setCreating(false)}
          onCreated={(url, secret) => {
            setCreating(false);
            setNotice(null);
            setCreated({ url, secret });
            hooks.reload();
          }}
        />
      )}
      {hooks.status === 'error' ? (
        <ErrorState error={hooks.error} retry={hooks.reload} />
      ) : !hooks.data ? (
        <Loading />
      ) : hooks.data.length === 0 ? (
        <Empty title="No webhooks">
          <p>A webhook POSTs signed events (a subscriber joined, a bounce, a campaign finished…) to a URL of yours.</p>
        </Empty>
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Webhook endpoints">
          <table>
            <caption className="visually-hidden">Webhook endpoints</caption>
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col" className="hide-narrow">
                  Events
                </th>
                <th scope="col">State</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {hooks.data.map((hook) => (
                <tr key={hook.id}>
                  <td className="break">
                    <code className="pattern">{hook.url}</code>
                  </td>
                  <td className="hide-narrow small">{hook.events.join(', ')}</td>
                  <td>
                    {hook.enabled ? <span className="badge good">Enabled</span> : <span className="badge">Disabled</span>}
                    {hook.disabled_reason && <div className="muted small">{hook.disabled_reason}</div>}
                    {hook.failing_since && <div className="muted small">Failing since {formatDateTime(hook.failing_since)}</div>}
                  </td>
                  <td>
                    <div className="rule-actions">
                      <button type="button" className="button" disabled={acting.busy} onClick={() => void sendTest(hook)}>
                        Send test<span className="visually-hidden"> to {hook.url}</span>
                      </button>
                      <button type="button" className="button" disabled={acting.busy} onClick={() => void setEnabled(hook, !hook.enabled)}>
                        {hook.enabled ? 'Disable' : 'Enable'}
                        <span className="visually-hidden"> {hook.url}</span>
                      </button>
                      <button
                        type="button"
                        className="button"
                        aria-expanded={showing === hook.id}
                        onClick={() => setShowing(showing === hook.id ? null : hook.id)}
                      >
                        Deliveries<span className="visually-hidden"> to {hook.url}</span>
                      </button>
                      <button type="button" className="button subtle danger" onClick={() => setDeleting(hook)}>
                        Delete<span className="visually-hidden"> {hook.url}</span>
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {showing !== null && hooks.data?.some((h) => h.id === showing) && (
        <WebhookDeliveries key={showing} webhook={hooks.data.find((h) => h.id === showing)!} />
      )}
      <ConfirmDialog
        title="Delete this webhook?"
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        confirmLabel="Delete webhook"
        confirm={async () => {
          if (!deleting) return;
          await unwrap(api.DELETE('/api/v2/webhooks/{webhookId}', { params: { path: { webhookId: deleting.id } } }));
          setNotice(`${deleting.url} deleted.`);
          if (showing === deleting.id) setShowing(null);
          hooks.reload();
        }}
      >
        <p>
          Events will no longer be sent to <code className="pattern">{deleting?.url}</code>, including those still waiting to be retried.
        </p>
      </ConfirmDialog>
    </>
  );
}

function WebhookForm({ onCancel, onCreated }: { onCancel: () => void; onCreated: (url: string, secret: string) => void }) {
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>([]);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const made = await unwrap(api.POST('/api/v2/webhooks', { body: { url: url.trim(), events } }));
      onCreated(made.url, made.secret);
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };

  const urlError = error?.fields.url?.join(' ');
  const eventsError = error
    ? Object.entries(error.fields)
        .filter(([field]) => field.startsWith('events'))
        .flatMap(([, messages]) => messages)
        .join(' ')
    : '';
  return (
    <section className="card stack" aria-labelledby="webhook-form-title">
      <h2 id="webhook-form-title">New webhook</h2>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        {error && !urlError && !eventsError && <Notice kind="error">{error.message}</Notice>}
        <label>
          URL
          <input
            required
            type="url"
            value={url}
            maxLength={2000}
            spellCheck={false}
            placeholder="https://example.com/mailroom-events"
            aria-invalid={urlError ? true : undefined}
            aria-describedby={urlError ? 'webhook-url-error' : undefined}
            onChange={(e) => setUrl(e.target.value)}
          />
        </label>
        {urlError && (
          <p id="webhook-url-error" className="field-error" role="alert">
            {urlError}
          </p>
        )}
        <fieldset>
          <legend>Events</legend>
          {EVENT_TYPES.map((type) => (
            <label key={type} className="inline">
              <input
                type="checkbox"
                checked={events.includes(type)}
                onChange={(e) => setEvents(e.target.checked ? [...events, type] : events.filter((t) => t !== type))}
              />{' '}
              {type}
            </label>
          ))}
        </fieldset>
        {eventsError && (
          <p className="field-error" role="alert">
            {eventsError}
          </p>
        )}
        <div className="row">
          <button type="submit" className="button primary" disabled={busy}>
            Create
          </button>
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
