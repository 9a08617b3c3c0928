import { checkAttributeValue, findOption, type DefinitionLike } from './attribute-value.rules.js';

/*
 * What an attribute definition's default value means. The API stores a default as it was given, as phpList does
 * (a checkbox may default to "United States", a select to an option's name or its id), so that clients read back
 * what they sent. Whatever turns a default into a value reads it here and only here: the sign-up form's and the
 * embed snippet's pre-filled controls (public/signup.pages.ts), a value written without one
 * (attribute.service.ts setValue) and the campaign preview's sample subscriber.
 */

export interface DefinitionWithDefault extends DefinitionLike {
  readonly defaultValue: string | null;
}

/** The words that tick a checkbox by default; any other default leaves it unticked. */
const TICKED = new Set(['1', 'on', 'true', 'yes']);

/**
 * The value a definition's default stands for, in the form values are stored: option ids for select and radio,
 * comma-separated ids for a checkboxgroup, `1`/`0` for a checkbox, `YYYY-MM-DD` for a date, the text as given for
 * the other types. An option is named by its id, or else by its name (trimmed, case-insensitive); a checkboxgroup's
 * default is a comma-separated list of them, so an option whose name holds a comma cannot be one of its defaults.
 * Null when there is no default or it stands for nothing of the type: no option it names, not a date.
 */
export function defaultAsValue(definition: DefinitionWithDefault): string | null {
  const given = definition.defaultValue;
  if (given === null) return null;
  const type = (definition.type ?? 'textline').toLowerCase();

  if (type === 'checkbox') return TICKED.has(given.trim().toLowerCase()) ? '1' : '0';

  if (type === 'select' || type === 'radio' || type === 'checkboxgroup') {
    const tokens = type === 'checkboxgroup' ? given.split(',') : [given];
    const ids: number[] = [];
    for (const token of tokens) {
      // A token that names no option (one since removed, say) is passed over rather than spoiling the others.
      const option = token.trim() === '' ? undefined : findOption(definition.options, token);
      if (option && !ids.includes(option.id)) ids.push(option.id);
    }
    return ids.length > 0 ? ids.join(',') : null;
  }

  if (type === 'date') {
    const checked = checkAttributeValue(definition, given);
    return checked.ok && checked.stored ? checked.stored : null;
  }

  return given;
}
