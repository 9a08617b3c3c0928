import { typeLabel } from './attributeTypes';

/** What a definition's editor is given by the Attributes view (both kinds). */
export type SavedNotice = { kind: 'success' | 'info'; text: string };
export interface EditorProps<D> {
  definition: D | null;
  nextOrder: number;
  onClose: () => void;
  onSaved: (notice: SavedNotice) => void;
}

/** The two fields every attribute definition has, whichever kind: its name and its type (from `types`, shown in plain words). */
export function NameAndType(props: {
  name: string;
  setName: (v: string) => void;
  type: string;
  setType: (v: string) => void;
  types: readonly string[];
}) {
  return (
    <>
      <label>
        Name
        <input required value={props.name} onChange={(e) => props.setName(e.target.value)} />
      </label>
      <label>
        Type
        <select value={props.type} onChange={(e) => props.setType(e.target.value)}>
          {props.types.map((t) => (
            <option key={t} value={t}>
              {typeLabel(t)}
            </option>
          ))}
        </select>
      </label>
    </>
  );
}
