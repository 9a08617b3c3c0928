import { api, unwrap } from '../../api/client';
import { useApi } from '../../api/useApi';
import { ErrorState, Loading } from '../../ui/kit';

const KIND_LABELS: Record<string, string> = { subscriber: 'Subscriber', attribute: 'Attributes', link: 'Links', campaign: 'Campaign' };

/** The placeholders the sender fills (GET /campaign-placeholders); a click inserts one at the editor's cursor. */
export function PlaceholderPanel({ onInsert }: { onInsert: (placeholder: string) => void }) {
  const list = useApi(() => unwrap(api.GET('/api/v2/campaign-placeholders')), []);
  if (list.status === 'error') return <ErrorState error={list.error} retry={list.reload} />;
  const data = list.data;
  if (!data) return <Loading label="Loading placeholders…" />;
  const groups = Object.keys(KIND_LABELS).map((kind) => ({ kind, items: data.items.filter((i) => i.kind === kind) }));
  return (
    <aside className="placeholders" aria-labelledby="placeholders-title">
      <h3 id="placeholders-title">Placeholders</h3>
      <p className="muted small">Filled in for each subscriber. Click to insert at the cursor.</p>
      {groups
        .filter((g) => g.items.length > 0)
        .map((g) => (
          <div key={g.kind}>
            <h4>{KIND_LABELS[g.kind]}</h4>
            <ul className="plain">
              {g.items.map((item) => (
                <li key={item.placeholder}>
                  <button type="button" className="chip" title={item.description} onClick={() => onInsert(item.placeholder)}>
                    <code>{item.placeholder}</code>
                    <span className="visually-hidden">: {item.description}</span>
                  </button>
                </li>
              ))}
            </ul>
          </div>
        ))}
    </aside>
  );
}
