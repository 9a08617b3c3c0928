import { readFile } from 'node:fs/promises';
import type { DefaultTemplate } from './template.schemas.js';

/** The built-in templates (reference §5.15: keys `system` and `responsive`), HTML files next to this module. */
export const DEFAULT_TEMPLATES: readonly DefaultTemplate[] = [
  {
    key: 'system',
    name: 'System template',
    description: 'A plain single-column layout with a footer, for system messages and simple campaigns.',
    file: 'system.html',
  },
  {
    key: 'responsive',
    name: 'Responsive template',
    description: 'A centred 600-pixel table layout that narrows to the screen on phones; works in Outlook too.',
    file: 'responsive.html',
  },
];

/** Text version shared by both built-ins. */
export const DEFAULT_TEXT = '[CONTENT]\n\n--\n[FOOTER]\nUnsubscribe: [UNSUBSCRIBEURL]\nYour preferences: [PREFERENCESURL]\n[SIGNATURE]\n';

export function findDefaultTemplate(key: string): DefaultTemplate | undefined {
  return DEFAULT_TEMPLATES.find((t) => t.key === key);
}

export async function readDefaultTemplate(template: DefaultTemplate): Promise<string> {
  return readFile(new URL(`./default-templates/${template.file}`, import.meta.url), 'utf8');
}
