import { escapeHtml } from '../shared/html.js';
import { honeypotField, submitButton } from './forms.js';
import { translator } from '../shared/i18n.js';
import { signup } from './messages/signup.js';
import { formFields } from './signup.pages.js';
import { HONEYPOT } from './signup.form.js';
import type { SignupForm } from './signup.service.js';

/**
 * The HTML to paste into another site: the hosted form's fields (same names, labels and controls) in a plain form
 * posting to this service, with no script and no stylesheet (the host site's styles apply; the class names are the
 * hosted page's). A post lands on the hosted pages: the thank-you page (303), the form with its messages (422) or
 * the wait page (429); CORS plays no part in a form post.
 */
export function embedSnippet(publicUrl: string, form: SignupForm): string {
  const t = translator(signup, form.lang);
  const button = form.data.get('button')?.trim() || t('defaultButton');
  return (
    `<form class="mailroom-signup" method="post" action="${escapeHtml(`${publicUrl}/subscribe/${form.id}`)}" ` +
    `accept-charset="utf-8" lang="${form.lang}">\n` +
    formFields(form).replace(/<\/div><div class="field">/g, '</div>\n<div class="field">') +
    '\n' +
    honeypotField(HONEYPOT, t('honeypotLabel'), { inlineStyle: true }) +
    '\n' +
    submitButton(button) +
    '\n</form>\n'
  );
}
