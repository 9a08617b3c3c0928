import type { AppContext } from '../context.js';
import { attributePlaceholder } from '../shared/placeholder-name.js';
import type { Placeholders } from './campaign-preview.schemas.js';
import { attributeNames } from './compose/compose.repository.js';

type Item = Placeholders['items'][number];

/** The placeholders compileCampaign fills (compose/compile.ts), described for the console's editor. */
const FIXED: Item[] = [
  { placeholder: '[EMAIL]', description: "The subscriber's e-mail address", kind: 'subscriber' },
  { placeholder: '[UNIQID]', description: "The subscriber's unique id", kind: 'subscriber' },
  { placeholder: '[LISTS]', description: 'The public lists the subscriber is on', kind: 'subscriber' },
  { placeholder: '[CONFIRMED]', description: '1 when the subscriber confirmed, else 0', kind: 'subscriber' },
  { placeholder: '[ENTERED]', description: 'When the subscriber signed up', kind: 'subscriber' },
  { placeholder: '[UNSUBSCRIBE]', description: 'An "Unsubscribe" link (the bare address in the text part)', kind: 'link' },
  { placeholder: '[UNSUBSCRIBEURL]', description: "The subscriber's one-click unsubscribe address", kind: 'link' },
  { placeholder: '[PREFERENCES]', description: 'An "Update your preferences" link', kind: 'link' },
  { placeholder: '[PREFERENCESURL]', description: "The address of the subscriber's preferences page", kind: 'link' },
  { placeholder: '[FORWARD]', description: 'A "Forward this message" link', kind: 'link' },
  { placeholder: '[FORWARDURL]', description: 'The address of the forward-to-a-friend page', kind: 'link' },
  { placeholder: '[CONFIRMATIONURL]', description: 'The confirmation address (invitations)', kind: 'link' },
  { placeholder: '[SUBJECT]', description: "The campaign's subject", kind: 'campaign' },
  { placeholder: '[MESSAGEID]', description: "The campaign's id", kind: 'campaign' },
  { placeholder: '[WEBSITE]', description: "The service's host name", kind: 'campaign' },
];

export async function campaignPlaceholders(ctx: AppContext): Promise<Placeholders> {
  // Each attribute's placeholder as the attribute definitions show it (one derivation); names none can hold are left out.
  const attributes = (await attributeNames(ctx.db))
    .map((name) => name.replace(/\s+/g, ' ').trim())
    .sort((a, b) => a.localeCompare(b))
    .flatMap((name): Item[] => {
      const placeholder = attributePlaceholder(name);
      if (!placeholder) return [];
      const withFallback = `${placeholder.slice(0, -1)}%%fallback]`;
      return [{ placeholder, description: `The subscriber's "${name}" attribute (write ${withFallback} for a default)`, kind: 'attribute' }];
    });
  return { items: [...FIXED.slice(0, 5), ...attributes, ...FIXED.slice(5)] };
}
