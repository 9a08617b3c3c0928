import { useState, type ReactNode } from 'react';
import { api, unwrap } from '../api/client';
import type { AdminAttributeDefinition } from '../api/types';
import { useApi } from '../api/useApi';
import { ErrorState, Loading } from '../ui/kit';

export interface AdminAttributes {
  fields: ReactNode;
  /** Writes the values that changed for the administrator `adminId` (a new one has no values yet). */
  save: (adminId: number) => Promise<void>;
}

/**
 * The administrator attribute values of the administrator being edited (or created): the definitions in their
 * order, each with the stored value. Emptying a stored value deletes it, so the definition's default applies again.
 */
export function useAdminAttributes(adminId: number | null): AdminAttributes {
  const loaded = useApi(async () => {
    const defs = await unwrap(api.GET('/api/v2/administrators/attributes', { params: { query: { limit: 100 } } }));
    const stored = adminId
      ? await unwrap(api.GET('/api/v2/administrators/{adminId}/attributes', { params: { path: { adminId }, query: { limit: 100 } } }))
      : { items: [] };
    const values = new Map(stored.items.map((v) => [v.definition.id, v.value ?? '']));
    const ordered = [...defs.items].sort((a, b) => (a.list_order ?? 0) - (b.list_order ?? 0) || a.id - b.id);
    return { defs: ordered, values };
  }, [adminId]);
  const [edits, setEdits] = useState<Record<number, string>>({});

  const save = async (id: number) => {
    if (!loaded.data) return;
    for (const [key, value] of Object.entries(edits)) {
      const definitionId = Number(key);
      const before = loaded.data.values.get(definitionId);
      if (value === (before ?? '')) continue;
      const path = { adminId: id, definitionId };
      if (value === '' && before !== undefined)
        await unwrap(api.DELETE('/api/v2/administrators/{adminId}/attributes/{definitionId}', { params: { path } }));
      else if (value !== '')
        await unwrap(api.PUT('/api/v2/administrators/{adminId}/attributes/{definitionId}', { params: { path }, body: { value } }));
    }
  };

  let fields: ReactNode;
  if (loaded.status === 'error') fields = <ErrorState error={loaded.error} retry={loaded.reload} />;
  else if (!loaded.data) fields = <Loading label="Loading attributes…" />;
  else if (loaded.data.defs.length === 0) fields = null;
  else
    fields = (
      <fieldset>
        <legend>Attributes</legend>
        <div className="stack">
          {loaded.data.defs.map((d) => (
            <AttributeInput
              key={d.id}
              definition={d}
              value={edits[d.id] ?? loaded.data!.values.get(d.id) ?? ''}
              onChange={(v) => setEdits({ ...edits, [d.id]: v })}
            />
          ))}
        </div>
      </fieldset>
    );
  return { fields, save };
}

function AttributeInput({
  definition: d,
  value,
  onChange,
}: {
  definition: AdminAttributeDefinition;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <label>
      {d.name}
      {d.required && ' (required)'}
      <input
        value={value}
        required={d.required && !d.default_value}
        placeholder={d.default_value ? `default: ${d.default_value}` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
    </label>
  );
}
