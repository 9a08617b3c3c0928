import type { ReactNode } from 'react';
import type { AttributeDefinition, List } from '../../api/types';
import { typeLabel } from '../attributeTypes';

/*
 * The lists a form offers and the attributes it asks for, ticked. Ticking adds at the end, so the stored order (the
 * order the form shows them in) is kept for what was there; the boxes themselves stay where they are, so focus never
 * jumps under the keyboard. The order the form will use is listed under each group, with buttons to change it.
 */

const toggle = (ids: readonly number[], id: number, on: boolean) => (on ? [...ids.filter((x) => x !== id), id] : ids.filter((x) => x !== id));

/** The ticked items in the form's order; with two or more, each can be moved up or down. */
function FormOrder(props: {
  id: string;
  items: { id: number; name: string }[];
  value: number[];
  onChange: (ids: number[]) => void;
  none: string;
  lead: string;
}) {
  const move = (index: number, by: -1 | 1) => {
    const ids = props.items.map((item) => item.id);
    [ids[index], ids[index + by]] = [ids[index + by]!, ids[index]!];
    // Ids not shown (a list of another owner) keep their place at the end.
    props.onChange([...ids, ...props.value.filter((id) => !ids.includes(id))]);
  };
  if (props.items.length === 0)
    return (
      <p id={props.id} className="muted small">
        {props.none}
      </p>
    );
  return (
    <div className="stack form-order">
      <p id={props.id} className="muted small">
        {props.lead}
        {props.items.length === 1 ? `: ${props.items[0]!.name}.` : ', in this order:'}
      </p>
      {props.items.length > 1 && (
        <ol className="small">
          {props.items.map((item, i) => (
            <li key={item.id} className="option-row">
              <span>{item.name}</span>
              <button type="button" className="button subtle" aria-label={`Move ${item.name} up`} disabled={i === 0} onClick={() => move(i, -1)}>
                ↑
              </button>
              <button
                type="button"
                className="button subtle"
                aria-label={`Move ${item.name} down`}
                disabled={i === props.items.length - 1}
                onClick={() => move(i, 1)}
              >
                ↓
              </button>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

export function ListChooser(props: { lists: readonly List[]; value: number[]; onChange: (ids: number[]) => void; error?: ReactNode }) {
  // Public lists, and any other list already chosen (a private one is not offered: it is shown so it can be unticked).
  const shown = props.lists.filter((l) => l.public || props.value.includes(l.id));
  const byId = new Map(props.lists.map((l) => [l.id, l]));
  const order = props.value.flatMap((id) => (byId.get(id)?.public ? [{ id, name: byId.get(id)!.name }] : []));
  return (
    <fieldset aria-describedby="lists-order">
      <legend>Lists offered</legend>
      {shown.length === 0 && <p className="muted small">There is no public list yet: make a list public (Lists → Edit) to offer it here.</p>}
      {shown.map((l) => (
        <label key={l.id} className="inline">
          <input type="checkbox" checked={props.value.includes(l.id)} onChange={(e) => props.onChange(toggle(props.value, l.id, e.target.checked))} />{' '}
          {l.name}
          {!l.public && <span className="muted small"> (private: not offered on the form)</span>}
        </label>
      ))}
      <FormOrder
        id="lists-order"
        items={order}
        value={props.value}
        onChange={props.onChange}
        none="No list ticked: the form takes no sign-ups."
        lead="Offered on the form"
      />
      {props.error}
    </fieldset>
  );
}

export function AttributeChooser(props: { attributes: readonly AttributeDefinition[]; value: number[]; onChange: (ids: number[]) => void }) {
  const byId = new Map(props.attributes.map((a) => [a.id, a]));
  const order = props.value.flatMap((id) => (byId.get(id) ? [{ id, name: byId.get(id)!.name }] : []));
  return (
    <fieldset aria-describedby="attributes-order">
      <legend>Attributes asked</legend>
      {props.attributes.length === 0 && <p className="muted small">There are no subscriber attributes (Attributes, in the menu).</p>}
      {props.attributes.map((a) => (
        <label key={a.id} className="inline">
          <input type="checkbox" checked={props.value.includes(a.id)} onChange={(e) => props.onChange(toggle(props.value, a.id, e.target.checked))} />{' '}
          {a.name}{' '}
          <span className="muted small">
            ({typeLabel(a.type)}
            {a.required ? ', required' : ''})
          </span>
        </label>
      ))}
      <FormOrder
        id="attributes-order"
        items={order}
        value={props.value}
        onChange={props.onChange}
        none="Only the e-mail address is asked for."
        lead="Asked after the e-mail address"
      />
    </fieldset>
  );
}
