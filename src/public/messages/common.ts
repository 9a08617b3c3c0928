import { catalogue } from '../../shared/i18n.js';

/** Strings of the layout and the form helpers, shared by every public page. */
export const common = catalogue({
  en: {
    required: 'required',
    errorSummaryTitle: 'Please check the highlighted fields.',
    logoAlt: '{name} logo',
    organisationLogoAlt: 'Logo',
    poweredBy: 'Mailing list service: Mailroom',
    tooManyTitle: 'Please wait a moment',
    tooManyText: 'We received too many requests from you or for this address. Please try again in {minutes} minutes.',
    notFoundTitle: 'Page not found',
    notFoundText: 'There is no sign-up form at this address (any more). Please check the link you followed.',
    badFormTitle: 'Something went wrong',
    badFormText: 'We could not read what was sent. Please go back and try again.',
  },
  de: {
    required: 'Pflichtfeld',
    errorSummaryTitle: 'Bitte prüfen Sie die markierten Felder.',
    logoAlt: 'Logo von {name}',
    organisationLogoAlt: 'Logo',
    poweredBy: 'Verteilerdienst: Mailroom',
    tooManyTitle: 'Bitte einen Moment Geduld',
    tooManyText: 'Wir haben zu viele Anfragen von Ihnen oder für diese Adresse erhalten. Bitte versuchen Sie es in {minutes} Minuten erneut.',
    notFoundTitle: 'Seite nicht gefunden',
    notFoundText: 'Unter dieser Adresse gibt es kein Anmeldeformular (mehr). Bitte prüfen Sie den Link, dem Sie gefolgt sind.',
    badFormTitle: 'Etwas ist schiefgegangen',
    badFormText: 'Wir konnten die gesendeten Daten nicht lesen. Bitte gehen Sie zurück und versuchen Sie es erneut.',
  },
});
