import { Type } from '@sinclair/typebox';

/** Any text: a path that is not a page id gets the 404 page, not a JSON validation error. */
export const SignupParams = Type.Object({ pageId: Type.String({ maxLength: 100, description: 'The subscribe page id' }) });

export const Html = Type.String({ description: 'An HTML page' });
export const HtmlPage = (description: string) => ({ description, content: { 'text/html': { schema: Html } } });

const Value = Type.Union([Type.String(), Type.Array(Type.String())]);

/**
 * The form (application/x-www-form-urlencoded). Every field is optional here: the service checks them and answers
 * the form again with each message beside its field, never a JSON error.
 */
export const SignupFormBody = Type.Object(
  {
    email: Type.Optional(Value),
    email_confirm: Type.Optional({ ...Value, description: "The address again (pages with 'emaildoubleentry')" }),
    list: Type.Optional({ ...Value, description: 'A chosen list id; once per list (ignored on a page with one list)' }),
    website: Type.Optional({ ...Value, description: 'The honeypot: must stay empty' }),
  },
  {
    additionalProperties: true,
    description: 'Plus `attr_<attribute id>` per attribute the page asks for (once per ticked box of a checkboxgroup)',
  },
);
