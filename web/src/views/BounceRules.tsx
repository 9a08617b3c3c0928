import { useState } from 'react';
import { api, unwrap } from '../api/client';
import type { paths } from '../api/schema';
import { useApi } from '../api/useApi';
import { ConfirmDialog, Empty, ErrorState, Loading, Notice, PageHeader, useAction } from '../ui/kit';
import { RuleForm } from './BounceRuleForm';
import { ACTION_LABELS, type Rule } from './bounceRule';
import './templates.css';

type RuleBody = paths['/api/v2/bounces/regex']['post']['requestBody']['content']['application/json'];

/** The rules bounce processing tries in order (list_order, then id); the first that matches decides. */
export default function BounceRules() {
  const rules = useApi(() => unwrap(api.GET('/api/v2/bounces/regex')), []);
  const [editing, setEditing] = useState<Rule | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Rule | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const moving = useAction();

  /**
   * Moves a rule one place up or down. The API's order is `list_order` (then id), so the new order is written as
   * list_order 10, 20, 30… to every rule whose value changes (a PUT each: rules are tens, not thousands).
   */
  const move = (index: number, by: -1 | 1) =>
    moving.run(async () => {
      const list = [...(rules.data ?? [])];
      const [rule] = list.splice(index, 1);
      if (!rule) return;
      list.splice(index + by, 0, rule);
      for (const [i, r] of list.entries()) {
        const order = (i + 1) * 10;
        if (r.list_order === order) continue;
        await unwrap(
          api.PUT('/api/v2/bounces/regex/{ruleId}', {
            params: { path: { ruleId: r.id } },
            body: {
              regex: r.regex,
              action: (r.action ?? 'deletebounce') as RuleBody['action'],
              status: (r.status ?? 'active') as RuleBody['status'],
              list_order: order,
              comment: r.comment,
            },
          }),
        );
      }
      setNotice(`Rule ${rule.regex} moved ${by < 0 ? 'up' : 'down'}.`);
      rules.reload();
    });

  return (
    <>
      <PageHeader title="Bounce rules" back={{ to: 'bounces', label: 'Bounces' }}>
        <button type="button" className="button primary" onClick={() => setEditing('new')}>
          New rule
        </button>
      </PageHeader>
      {notice && <Notice kind="success">{notice}</Notice>}
      {moving.error && <Notice kind="error">{moving.error}</Notice>}
      {editing && (
        <RuleForm
          key={editing === 'new' ? 'new' : editing.id}
          rule={editing === 'new' ? null : editing}
          nextOrder={((rules.data?.length ?? 0) + 1) * 10}
          onCancel={() => setEditing(null)}
          onSaved={(saved, created) => {
            setEditing(null);
            setNotice(created ? `Rule ${saved.regex} created.` : `Rule ${saved.regex} saved.`);
            rules.reload();
          }}
        />
      )}
      {rules.status === 'error' ? (
        <ErrorState error={rules.error} retry={rules.reload} />
      ) : !rules.data ? (
        <Loading />
      ) : rules.data.length === 0 ? (
        <Empty title="No bounce rules">
          <p>
            A rule matches a bounce's text with a pattern and says what happens to the subscriber, e.g. unconfirm them when their mailbox no longer
            exists.
          </p>
        </Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Bounce rules in the order they are tried</caption>
            <thead>
              <tr>
                <th scope="col" className="num">
                  #
                </th>
                <th scope="col">Pattern</th>
                <th scope="col" className="hide-narrow">
                  Action
                </th>
                <th scope="col" className="num hide-narrow">
                  Matched
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rules.data.map((rule, i, all) => (
                <tr key={rule.id}>
                  <td className="num">{i + 1}</td>
                  <td>
                    <code className="pattern">{rule.regex}</code>
                    {rule.status !== 'active' && <span className="badge"> {rule.status}</span>}
                    {rule.comment && <div className="muted small">{rule.comment}</div>}
                  </td>
                  <td className="hide-narrow">{ACTION_LABELS[rule.action ?? ''] ?? rule.action}</td>
                  <td className="num hide-narrow">{(rule.count ?? 0).toLocaleString('en')}</td>
                  <td>
                    <div className="rule-actions">
                      <button
                        type="button"
                        className="button"
                        disabled={i === 0 || moving.busy}
                        onClick={() => void move(i, -1)}
                        aria-label={`Move ${rule.regex} up`}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        className="button"
                        disabled={i === all.length - 1 || moving.busy}
                        onClick={() => void move(i, 1)}
                        aria-label={`Move ${rule.regex} down`}
                      >
                        ↓
                      </button>
                      <button type="button" className="button" onClick={() => setEditing(rule)}>
                        Edit<span className="visually-hidden"> {rule.regex}</span>
                      </button>
                      <button type="button" className="button subtle danger" onClick={() => setDeleting(rule)}>
                        Delete<span className="visually-hidden"> {rule.regex}</span>
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        title="Delete this rule?"
        open={deleting !== null}
        onClose={() => setDeleting(null)}
        confirmLabel="Delete rule"
        confirm={async () => {
          if (!deleting) return;
          await unwrap(api.DELETE('/api/v2/bounces/regex/{ruleId}', { params: { path: { ruleId: deleting.id } } }));
          setNotice(`Rule ${deleting.regex} deleted.`);
          if (editing !== 'new' && editing?.id === deleting.id) setEditing(null);
          rules.reload();
        }}
      >
        <p>
          Bounces matching <code className="pattern">{deleting?.regex}</code> will no longer be handled by this rule; what it already did stays.
        </p>
      </ConfirmDialog>
    </>
  );
}
