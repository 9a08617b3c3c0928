import { Type } from '@sinclair/typebox';

/** Any text: a garbled token gets the "link does not work" page, not a JSON validation error. */
export const TokenParams = Type.Object({ token: Type.String({ maxLength: 1000, description: 'The signed token of the link' }) });

export const PreferencesQuery = Type.Object({
  saved: Type.Optional(Type.String({ maxLength: 20, description: 'Which change was just saved (shows a notice): lists, attributes, format, left' })),
});

export const Html = Type.String({ description: 'An HTML page' });
export const HtmlPage = (description: string) => ({ description, content: { 'text/html': { schema: Html } } });

/** A form post (application/x-www-form-urlencoded); its fields are read and checked by the page (see the summary). */
export const FormBody = Type.String({ description: 'The form fields, URL-encoded' });
