import { catalogue } from '../../shared/i18n.js';

/** The sign-up form and its thank-you page (its mails: subscription/signup.messages.ts). */
export const signup = catalogue({
  en: {
    emailLabel: 'E-mail address',
    emailConfirmLabel: 'E-mail address again',
    listsLegend: 'Lists',
    oneList: 'You are signing up for: {list}',
    defaultButton: 'Subscribe',
    chooseOption: 'Please choose',
    honeypotLabel: 'Leave this field empty',
    errRequired: 'Please fill in this field.',
    errEmail: 'Please enter an e-mail address such as name@example.org.',
    errEmailMismatch: 'The two e-mail addresses differ.',
    errLists: 'Please choose at least one list.',
    errChoice: 'Please choose one of the options shown.',
    errDate: 'Please enter a date as YYYY-MM-DD.',
    errOneLine: 'Please keep this to one line.',
    errTooLong: 'This is too long.',
    thanksTitle: 'Thank you',
    thanksDoubleOptIn:
      'Please check your inbox: if this address can be signed up, we have sent a message with a link to confirm. The link is valid until you use it.',
    thanksSingleOptIn: 'Your sign-up has been received.',
    noListsTitle: 'Sign-ups are not open yet',
    noListsText:
      'This form has no list to join yet, so it cannot take sign-ups. Please come back later. If you run this site: choose the lists of this subscribe page (its "lists" setting) in the admin console or the API.',
  },
  de: {
    emailLabel: 'E-Mail-Adresse',
    emailConfirmLabel: 'E-Mail-Adresse wiederholen',
    listsLegend: 'Listen',
    oneList: 'Sie melden sich an für: {list}',
    defaultButton: 'Anmelden',
    chooseOption: 'Bitte wählen',
    honeypotLabel: 'Dieses Feld bitte leer lassen',
    errRequired: 'Bitte füllen Sie dieses Feld aus.',
    errEmail: 'Bitte geben Sie eine E-Mail-Adresse wie name@example.org ein.',
    errEmailMismatch: 'Die beiden E-Mail-Adressen stimmen nicht überein.',
    errLists: 'Bitte wählen Sie mindestens eine Liste.',
    errChoice: 'Bitte wählen Sie eine der angezeigten Möglichkeiten.',
    errDate: 'Bitte geben Sie ein Datum als JJJJ-MM-TT ein.',
    errOneLine: 'Bitte nur eine Zeile.',
    errTooLong: 'Das ist zu lang.',
    thanksTitle: 'Vielen Dank',
    thanksDoubleOptIn:
      'Bitte sehen Sie in Ihrem Posteingang nach: Wenn diese Adresse angemeldet werden kann, haben wir eine Nachricht mit einem Bestätigungslink geschickt. Der Link gilt, bis Sie ihn verwenden.',
    thanksSingleOptIn: 'Ihre Anmeldung ist eingegangen.',
    noListsTitle: 'Anmeldungen sind noch nicht möglich',
    noListsText:
      'Dieses Formular hat noch keine Liste, für die man sich anmelden kann. Bitte versuchen Sie es später noch einmal. Wenn Sie diese Website betreiben: wählen Sie die Listen dieser Anmeldeseite (ihre Einstellung „lists“) in der Verwaltungsoberfläche oder über die API.',
  },
});
