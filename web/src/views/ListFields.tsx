/** What a person types for a list, in the new-list and edit-list dialogs. */
export interface ListDraft {
  name: string;
  description: string;
  public: boolean;
}

/** The draft as the lists API takes it: an empty description is none. */
export const listBody = (draft: ListDraft) => ({ name: draft.name, description: draft.description || null, public: draft.public });

/** The list's name, description and public flag; `publicLabel` says what public means where the list is made. */
export function ListFields({ draft, onChange, publicLabel }: { draft: ListDraft; onChange: (draft: ListDraft) => void; publicLabel: string }) {
  return (
    <>
      <label>
        Name
        <input required value={draft.name} onChange={(e) => onChange({ ...draft, name: e.target.value })} />
      </label>
      <label>
        Description
        <textarea value={draft.description} onChange={(e) => onChange({ ...draft, description: e.target.value })} />
      </label>
      <label className="inline">
        <input type="checkbox" checked={draft.public} onChange={(e) => onChange({ ...draft, public: e.target.checked })} /> {publicLabel}
      </label>
    </>
  );
}
