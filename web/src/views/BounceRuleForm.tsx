import { useId, useState, type FormEvent } from 'react';
import type { ApiError } from '../api/client';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { Notice } from '../ui/kit';
import { ACTION_LABELS, type Rule } from './bounceRule';

type RuleBody = paths['/api/v2/bounces/regex']['post']['requestBody']['content']['application/json'];
type TestResult = paths['/api/v2/bounces/regex/test']['post']['responses'][200]['content']['application/json'];

/** Create or edit a rule, with a box that tries the pattern on a pasted bounce on the server (the processor's engine). */
export function RuleForm({
  rule,
  nextOrder,
  onCancel,
  onSaved,
}: {
  rule: Rule | null;
  nextOrder: number;
  onCancel: () => void;
  onSaved: (rule: Rule, created: boolean) => void;
}) {
  const [regex, setRegex] = useState(rule?.regex ?? '');
  const [action, setAction] = useState<RuleBody['action']>((rule?.action as RuleBody['action']) ?? 'unconfirmuser');
  const [status, setStatus] = useState<RuleBody['status']>((rule?.status as RuleBody['status']) ?? 'active');
  const [comment, setComment] = useState(rule?.comment ?? '');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const titleId = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const body: RuleBody = { regex: regex.trim(), action, status, list_order: rule?.list_order ?? nextOrder, comment: comment.trim() || null };
    try {
      const saved = rule
        ? await unwrap(api.PUT('/api/v2/bounces/regex/{ruleId}', { params: { path: { ruleId: rule.id } }, body }))
        : await unwrap(api.POST('/api/v2/bounces/regex', { body }));
      onSaved(saved, rule === null);
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };

  const regexError = error?.fields.regex?.join(' ');
  return (
    <section className="card stack" aria-labelledby={titleId}>
      <h2 id={titleId}>{rule ? `Edit rule ${rule.regex}` : 'New bounce rule'}</h2>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        {error && !regexError && <Notice kind="error">{error.message}</Notice>}
        <label>
          Pattern
          <input
            required
            value={regex}
            maxLength={500}
            spellCheck={false}
            className="mono"
            placeholder="/mailbox (is )?full/i"
            aria-invalid={regexError ? true : undefined}
            aria-describedby="regex-help regex-error"
            onChange={(e) => setRegex(e.target.value)}
          />
        </label>
        <p id="regex-help" className="muted small">
          A pattern between delimiters, with flags i, m, s, x or u, as phpList writes them. Matching is linear-time (RE2): no backreferences or
          lookaround.
        </p>
        {regexError && (
          <p id="regex-error" className="field-error" role="alert">
            {regexError}
          </p>
        )}
        <div className="row">
          <label>
            Action
            <select value={action} onChange={(e) => setAction(e.target.value as RuleBody['action'])}>
              {Object.entries(ACTION_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label className="narrow-field">
            Status
            <select value={status} onChange={(e) => setStatus(e.target.value as RuleBody['status'])}>
              <option value="active">Active</option>
              <option value="invite">Candidate (invite)</option>
            </select>
          </label>
        </div>
        <label>
          Comment
          <input value={comment} maxLength={2000} onChange={(e) => setComment(e.target.value)} />
        </label>
        <TryRule regex={regex} />
        <div className="form-actions">
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="button primary" disabled={busy}>
            {rule ? 'Save rule' : 'Create rule'}
          </button>
        </div>
      </form>
    </section>
  );
}

/** "Try this rule": the pattern as typed, run by the server on pasted bounce text; nothing is saved. */
function TryRule({ regex }: { regex: string }) {
  const [text, setText] = useState('');
  const [result, setResult] = useState<TestResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const tried = async () => {
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      setResult(await unwrap(api.POST('/api/v2/bounces/regex/test', { body: { regex: regex.trim(), text } })));
    } catch (err) {
      setError((err as ApiError).fields.regex?.join(' ') ?? (err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <fieldset className="stack try-rule">
      <legend>Try this rule</legend>
      <label>
        Bounce text
        <textarea
          value={text}
          rows={6}
          maxLength={65_536}
          className="mono"
          placeholder="Paste a bounce message here"
          onChange={(e) => setText(e.target.value)}
        />
      </label>
      <div>
        <button type="button" className="button" disabled={busy || !regex.trim() || !text} onClick={() => void tried()}>
          {busy ? 'Trying…' : 'Try the pattern'}
        </button>
      </div>
      <div aria-live="polite" data-testid="try-result">
        {error && <Notice kind="error">{error}</Notice>}
        {result &&
          (result.matches && result.match ? (
            <div className="notice success">
              <p className="small">
                <strong>Matches</strong> at characters {result.match.start}–{result.match.end}:
              </p>
              <pre className="raw match-excerpt">
                <Excerpt excerpt={result.excerpt ?? ''} matched={result.match.text} />
              </pre>
            </div>
          ) : (
            <Notice>
              <strong>No match</strong> in the {result.searched.toLocaleString('en')} characters searched
              {result.searched < text.length ? ' (bounce processing reads only the first 20,000)' : ''}.
            </Notice>
          ))}
      </div>
    </fieldset>
  );
}

/** The excerpt with the matched part marked (found by plain search: the server put it in the excerpt). */
function Excerpt({ excerpt, matched }: { excerpt: string; matched: string }) {
  const at = excerpt.indexOf(matched);
  if (at < 0 || !matched) return <>{excerpt}</>;
  return (
    <>
      {excerpt.slice(0, at)}
      <mark>{matched}</mark>
      {excerpt.slice(at + matched.length)}
    </>
  );
}
