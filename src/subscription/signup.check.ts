import { checkAttributeValue } from './attribute-value.rules.js';
import type { DefinitionWithOptions } from './attribute.repository.js';
import { MAX_VALUE_LENGTH } from './attribute.schemas.js';

/*
 * The attribute values of a sign-up, checked the one way for the hosted form (public/signup.form.ts) and the JSON API
 * (subscribe-page-public.service.ts): the rules of attribute-value.rules.ts that the admin API applies, plus what a
 * sign-up adds (a required value, an unticked checkbox stored as `0`). Each caller words the problems its own way.
 */

export type ValueProblem = 'required' | 'tooLong' | 'date' | 'choice' | 'oneLine';

export interface CheckedValues {
  /** What to store, by definition (hidden attributes are not asked on a sign-up, so never stored from one). */
  readonly values: { definitionId: number; value: string }[];
  readonly problems: Map<number, ValueProblem>;
}

function problemOf(type: string): ValueProblem {
  if (type === 'date') return 'date';
  if (type === 'select' || type === 'radio' || type === 'checkboxgroup' || type === 'checkbox') return 'choice';
  return 'oneLine';
}

/** The values given for the page's attributes (`given`: definition id → the texts posted, several for a checkboxgroup). */
export function checkSignUpValues(definitions: readonly DefinitionWithOptions[], given: ReadonlyMap<number, readonly string[]>): CheckedValues {
  const values: { definitionId: number; value: string }[] = [];
  const problems = new Map<number, ValueProblem>();
  for (const definition of definitions) {
    const type = (definition.type ?? 'textline').toLowerCase();
    if (type === 'hidden') continue;
    const texts = (given.get(definition.id) ?? []).filter((v) => v.trim() !== '');
    if (texts.length === 0) {
      if (definition.required) problems.set(definition.id, 'required');
      else if (type === 'checkbox') values.push({ definitionId: definition.id, value: '0' });
      continue;
    }
    if (texts.some((v) => v.length > MAX_VALUE_LENGTH)) {
      problems.set(definition.id, 'tooLong');
      continue;
    }
    const checked = checkAttributeValue(definition, type === 'checkboxgroup' ? texts : texts[0]);
    if (!checked.ok) problems.set(definition.id, problemOf(type));
    else if (checked.stored !== null) values.push({ definitionId: definition.id, value: checked.stored });
  }
  return { values, problems };
}
