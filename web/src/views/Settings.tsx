import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { api, session, unwrap, type ApiError } from '../api/client';
import type { paths } from '../api/schema';
import { useApi } from '../api/useApi';
import { ErrorState, Loading, Notice, PageHeader } from '../ui/kit';

type Settings = paths['/api/v2/settings']['get']['responses'][200]['content']['application/json'];
type Patch = NonNullable<paths['/api/v2/settings']['patch']['requestBody']>['content']['application/json'];
type TestResult = paths['/api/v2/settings/smtp-test']['post']['responses'][200]['content']['application/json'];
type EnvField = keyof Settings['from_environment'];

/**
 * Settings (super users): sender, organisation, SMTP servers with Test connection, subscriber defaults, PUBLIC_URL.
 * Each section saves on its own; a field an environment variable sets is shown read-only with the variable's name.
 */
export default function SettingsView() {
  const loaded = useApi(() => unwrap(api.GET('/api/v2/settings')), []);
  const [settings, setSettings] = useState<Settings | null>(null);
  useEffect(() => setSettings(loaded.data ?? null), [loaded.data]);

  if (loaded.status === 'error') return <ErrorState error={loaded.error} retry={loaded.reload} />;
  if (!settings) return <Loading />;
  const save = async (patch: Patch) => setSettings(await unwrap(api.PATCH('/api/v2/settings', { body: patch })));
  return (
    <>
      <PageHeader title="Settings" />
      <p className="muted">
        Changes apply to every Mailroom process within seconds, without a restart. A setting an environment variable sets is shown read-only: the
        variable wins.
      </p>
      <SenderSection settings={settings} save={save} />
      <OrganisationSection settings={settings} save={save} onLogo={setSettings} />
      <SmtpSection settings={settings} save={save} />
      <SubscriberSection settings={settings} save={save} />
      <section className="card stack" aria-labelledby="settings-public-url">
        <h2 id="settings-public-url">Public address</h2>
        <p>
          Links in mail and the public pages start with <code className="mono">{settings.public_url}</code>. Set by the environment variable{' '}
          <code className="mono">PUBLIC_URL</code>
          {settings.from_environment.public_url ? '' : ' (its default)'}.
        </p>
      </section>
    </>
  );
}

interface SectionProps {
  settings: Settings;
  save: (patch: Patch) => Promise<void>;
}

/** A section's form: its own Save, its own message, the API's per-field errors. */
function Section(props: {
  id: string;
  title: string;
  locked?: boolean;
  submit: () => Promise<void>;
  children: (fieldError: (field: string) => ReactNode) => ReactNode;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [saved, setSaved] = useState(false);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSaved(false);
    try {
      await props.submit();
      setSaved(true);
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  const fieldError = (field: string) => {
    const messages = error?.fields[field];
    return messages ? (
      <span id={`${props.id}-${field}-error`} className="field-error" role="alert">
        {messages.join(' ')}
      </span>
    ) : null;
  };
  const hasFieldErrors = error && Object.keys(error.fields).length > 0;
  return (
    <section className="card stack" aria-labelledby={`${props.id}-title`}>
      <h2 id={`${props.id}-title`}>{props.title}</h2>
      <form className="stack" onSubmit={(e) => void onSubmit(e)} noValidate>
        {props.children(fieldError)}
        {error && !hasFieldErrors && <Notice kind="error">{error.message}</Notice>}
        {saved && <Notice kind="success">{props.title}: saved.</Notice>}
        {!props.locked && (
          <div className="row">
            <button type="submit" className="button primary" disabled={busy}>
              Save<span className="visually-hidden"> {props.title}</span>
            </button>
          </div>
        )}
      </form>
    </section>
  );
}

function EnvNote({ settings, field }: { settings: Settings; field: EnvField }) {
  const variable = settings.from_environment[field];
  return variable ? (
    <span className="muted small">
      Set by the environment variable <code className="mono">{variable}</code>, which wins over this screen.
    </span>
  ) : null;
}

function TextField(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  type?: string;
  readOnly?: boolean;
  error: ReactNode;
  errorId: string;
  note?: ReactNode;
  placeholder?: string;
}) {
  return (
    <label>
      {props.label}
      <input
        type={props.type ?? 'text'}
        value={props.value}
        readOnly={props.readOnly}
        placeholder={props.placeholder}
        maxLength={255}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={props.error ? props.errorId : undefined}
        onChange={(e) => props.onChange(e.target.value)}
      />
      {props.note}
      {props.error}
    </label>
  );
}

function SenderSection({ settings, save }: SectionProps) {
  const [fromName, setFromName] = useState(settings.from_name);
  const [fromAddress, setFromAddress] = useState(settings.from_address);
  const [replyTo, setReplyTo] = useState(settings.reply_to);
  const locked = Boolean(settings.from_environment.from_address);
  return (
    <Section
      id="sender"
      title="Sender"
      submit={() => save({ ...(locked ? {} : { from_name: fromName, from_address: fromAddress }), reply_to: replyTo })}
    >
      {(fieldError) => (
        <>
          <p className="muted small">The From and Reply-To of system mail, and of campaigns that name none.</p>
          <TextField
            label="From name"
            value={fromName}
            onChange={setFromName}
            readOnly={locked}
            error={fieldError('from_name')}
            errorId="sender-from_name-error"
            note={<EnvNote settings={settings} field="from_name" />}
          />
          <TextField
            label="From address"
            type="email"
            value={fromAddress}
            onChange={setFromAddress}
            readOnly={locked}
            error={fieldError('from_address')}
            errorId="sender-from_address-error"
            note={<EnvNote settings={settings} field="from_address" />}
          />
          <TextField
            label="Reply-To address"
            type="email"
            value={replyTo}
            onChange={setReplyTo}
            placeholder="None"
            error={fieldError('reply_to')}
            errorId="sender-reply_to-error"
          />
        </>
      )}
    </Section>
  );
}

function OrganisationSection({ settings, save, onLogo }: SectionProps & { onLogo: (settings: Settings) => void }) {
  const [name, setName] = useState(settings.organisation_name);
  const [logoError, setLogoError] = useState<string | null>(null);
  const upload = async (file: File) => {
    setLogoError(null);
    const key = session.key();
    const response = await fetch('/api/v2/settings/logo', {
      method: 'PUT',
      headers: { 'content-type': file.type || 'application/octet-stream', ...(key ? { 'php-auth-pw': key } : {}) },
      body: file,
    });
    const body = (await response.json().catch(() => ({}))) as Settings & { message?: string; errors?: Record<string, string[]> };
    if (response.ok) onLogo(body);
    else if (response.status === 413) setLogoError('The logo may be at most 512 KB.');
    else setLogoError(body.errors?.logo?.join(' ') ?? body.message ?? `The service answered ${response.status}.`);
  };
  const remove = async () => onLogo(await unwrap(api.DELETE('/api/v2/settings/logo')));
  return (
    <Section id="organisation" title="Organisation" submit={() => save({ organisation_name: name })}>
      {(fieldError) => (
        <>
          <p className="muted small">Shown on the public pages and in system mail (confirmations and the like).</p>
          <TextField
            label="Organisation name"
            value={name}
            onChange={setName}
            error={fieldError('organisation_name')}
            errorId="organisation-organisation_name-error"
          />
          <div className="stack">
            <span>Logo</span>
            {settings.logo ? (
              <div className="row">
                <img
                  src={new URL(settings.logo.url).pathname}
                  alt={`${settings.organisation_name || 'Organisation'} logo`}
                  style={{ maxHeight: 64, maxWidth: 240 }}
                />
                <button type="button" className="button subtle danger" onClick={() => void remove()}>
                  Remove logo
                </button>
              </div>
            ) : (
              <span className="muted small">No logo.</span>
            )}
            <label>
              {settings.logo ? 'Replace the logo' : 'Upload a logo'} <span className="muted small">(PNG, JPEG, GIF or WebP, at most 512 KB)</span>
              <input
                type="file"
                accept="image/png,image/jpeg,image/gif,image/webp"
                aria-invalid={logoError ? true : undefined}
                aria-describedby={logoError ? 'logo-error' : undefined}
                onChange={(e) => {
                  const file = e.target.files?.[0];
                  if (file) void upload(file);
                  e.target.value = '';
                }}
              />
            </label>
            {logoError && (
              <p id="logo-error" className="field-error" role="alert">
                {logoError}
              </p>
            )}
          </div>
        </>
      )}
    </Section>
  );
}

interface ServerRow {
  url: string;
  password: string;
  hasPassword: boolean;
}

function SmtpSection({ settings, save }: SectionProps) {
  const locked = Boolean(settings.from_environment.smtp_servers);
  const [rows, setRows] = useState<ServerRow[]>(settings.smtp_servers.map((s) => ({ url: s.url, password: '', hasPassword: s.has_password })));
  const [sendTo, setSendTo] = useState('');
  const [testing, setTesting] = useState<number | null>(null);
  const [result, setResult] = useState<TestResult | null>(null);
  const [testError, setTestError] = useState<string | null>(null);
  useEffect(() => setRows(settings.smtp_servers.map((s) => ({ url: s.url, password: '', hasPassword: s.has_password }))), [settings.smtp_servers]);
  const change = (index: number, row: Partial<ServerRow>) => setRows(rows.map((r, i) => (i === index ? { ...r, ...row } : r)));
  const serverOf = (row: ServerRow) => ({ url: row.url.trim(), ...(row.password ? { password: row.password } : {}) });
  const test = async (index: number) => {
    setTesting(index);
    setResult(null);
    setTestError(null);
    try {
      const body = locked ? {} : { server: serverOf(rows[index]!) };
      setResult(await unwrap(api.POST('/api/v2/settings/smtp-test', { body: { ...body, ...(sendTo.trim() ? { send_to: sendTo.trim() } : {}) } })));
    } catch (err) {
      setTestError((err as ApiError).message);
    } finally {
      setTesting(null);
    }
  };
  return (
    <Section id="smtp" title="SMTP servers" locked={locked} submit={() => save({ smtp_servers: rows.filter((r) => r.url.trim()).map(serverOf) })}>
      {(fieldError) => (
        <>
          <p className="muted small">
            Campaign mail is spread over these servers; system mail goes to the first. None: mail is written to the outbox folder. Form:{' '}
            <code className="mono">smtp://user@host:587</code>, <code className="mono">smtps://host:465</code>, <code className="mono">?tls=off</code>{' '}
            for a plain local relay, <code className="mono">?tls=required</code>.
          </p>
          {locked && <EnvNote settings={settings} field="smtp_servers" />}
          {rows.length === 0 && <p className="muted">No SMTP server: mail goes to the outbox.</p>}
          {rows.map((row, index) => (
            <fieldset key={index} className="stack">
              <legend>Server {index + 1}</legend>
              <label>
                URL
                <input
                  value={row.url}
                  readOnly={locked}
                  spellCheck={false}
                  maxLength={2000}
                  placeholder="smtp://user@smtp.example.com:587"
                  aria-invalid={fieldError(`smtp_servers[${index}].url`) ? true : undefined}
                  onChange={(e) => change(index, { url: e.target.value })}
                />
                {fieldError(`smtp_servers[${index}].url`)}
              </label>
              {!locked && (
                <label>
                  Password
                  <input
                    type="password"
                    autoComplete="new-password"
                    value={row.password}
                    placeholder={row.hasPassword ? 'Stored: leave empty to keep it' : 'None'}
                    onChange={(e) => change(index, { password: e.target.value })}
                  />
                </label>
              )}
              <div className="row">
                <button type="button" className="button" disabled={testing !== null || !row.url.trim()} onClick={() => void test(index)}>
                  {testing === index ? 'Testing…' : 'Test connection'}
                  <span className="visually-hidden"> to server {index + 1}</span>
                </button>
                {!locked && (
                  <button type="button" className="button subtle danger" onClick={() => setRows(rows.filter((_, i) => i !== index))}>
                    Remove<span className="visually-hidden"> server {index + 1}</span>
                  </button>
                )}
              </div>
            </fieldset>
          ))}
          {!locked && (
            <div className="row">
              <button type="button" className="button" onClick={() => setRows([...rows, { url: '', password: '', hasPassword: false }])}>
                Add a server
              </button>
            </div>
          )}
          <label>
            Send a test message to <span className="muted small">(optional, with Test connection)</span>
            <input type="email" value={sendTo} placeholder="you@example.com" onChange={(e) => setSendTo(e.target.value)} />
          </label>
          {testError && <Notice kind="error">{testError}</Notice>}
          {result && <TestPanel result={result} />}
        </>
      )}
    </Section>
  );
}

const STEP_NAMES: Record<TestResult['steps'][number]['step'], string> = {
  address: 'Address',
  connect: 'Connection',
  tls: 'TLS',
  greeting: 'Greeting',
  ehlo: 'EHLO',
  starttls: 'STARTTLS',
  auth: 'Login',
  mail: 'Test message',
};

function TestPanel({ result }: { result: TestResult }) {
  return (
    <div className="stack" role="status" aria-live="polite">
      <Notice kind={result.ok ? 'success' : 'error'}>
        {result.ok ? 'The server works.' : 'The test failed.'} <code className="mono break">{result.server}</code>
      </Notice>
      <ol className="stack small">
        {result.steps.map((step, index) => (
          <li key={index}>
            <span className={step.ok ? 'badge good' : 'badge bad'}>{step.ok ? 'OK' : 'Failed'}</span> <strong>{STEP_NAMES[step.step]}</strong>:{' '}
            <span className="mono break" style={{ whiteSpace: 'pre-wrap' }}>
              {step.detail}
            </span>
          </li>
        ))}
      </ol>
    </div>
  );
}

function SubscriberSection({ settings, save }: SectionProps) {
  const [html, setHtml] = useState(settings.subscriber_html_default);
  const locked = Boolean(settings.from_environment.subscriber_html_default);
  return (
    <Section id="subscribers" title="New subscribers" locked={locked} submit={() => save({ subscriber_html_default: html })}>
      {(fieldError) => (
        <>
          <label className="inline">
            <input type="checkbox" checked={html} disabled={locked} onChange={(e) => setHtml(e.target.checked)} /> New subscribers get HTML mail
            unless they or the import say otherwise
          </label>
          <EnvNote settings={settings} field="subscriber_html_default" />
          {fieldError('subscriber_html_default')}
        </>
      )}
    </Section>
  );
}
