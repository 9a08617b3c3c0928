import { useEffect, useState } from 'react';
import { api, unwrap } from '../../api/client';
import type { AttributeDefinition } from '../../api/types';
import { useApi } from '../../api/useApi';
import { InfoDialog } from '../../ui/FormDialog';

const STORAGE_KEY = 'mailroom.subscribers.columns';

/** The attribute ids shown as columns, remembered in this browser. */
export function useShownAttributes(): [number[], (ids: number[]) => void] {
  const [shown, setShown] = useState<number[]>(() => {
    try {
      const stored: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? '[]');
      return Array.isArray(stored) ? stored.filter((id): id is number => Number.isInteger(id)) : [];
    } catch {
      return [];
    }
  });
  useEffect(() => localStorage.setItem(STORAGE_KEY, JSON.stringify(shown)), [shown]);
  return [shown, setShown];
}

/** The page's values of the shown attributes, keyed `subscriberId:definitionId`, in one request. */
export function useAttributeValues(subscriberIds: number[], definitionIds: number[]): Map<string, string> {
  const key = `${subscriberIds.join(',')}|${definitionIds.join(',')}`;
  const values = useApi(async () => {
    if (subscriberIds.length === 0 || definitionIds.length === 0) return [];
    const query = { subscribers: subscriberIds.join(','), definitions: definitionIds.join(',') };
    return (await unwrap(api.GET('/api/v2/subscribers/attribute-values', { params: { query } }))).items;
  }, [key]);
  return new Map((values.data ?? []).map((v) => [`${v.subscriber_id}:${v.definition_id}`, v.value]));
}

/** "Columns": which attributes the table shows, ticked in a dialog. */
export function AttributeColumns(props: { attributes: AttributeDefinition[]; shown: number[]; setShown: (ids: number[]) => void }) {
  const [open, setOpen] = useState(false);
  const { shown, setShown } = props;
  return (
    <>
      <button type="button" className="button" onClick={() => setOpen(true)}>
        Columns
      </button>
      <InfoDialog title="Attribute columns" open={open} onClose={() => setOpen(false)}>
        {props.attributes.length === 0 ? (
          <p className="muted">There are no attributes yet.</p>
        ) : (
          <fieldset className="stack">
            <legend>Show these attributes as columns</legend>
            {props.attributes.map((a) => (
              <label key={a.id} className="inline">
                <input
                  type="checkbox"
                  checked={shown.includes(a.id)}
                  onChange={(e) => setShown(e.target.checked ? [...shown, a.id] : shown.filter((id) => id !== a.id))}
                />{' '}
                {a.name}
              </label>
            ))}
          </fieldset>
        )}
      </InfoDialog>
    </>
  );
}
