import { catalogue } from '../../shared/i18n.js';

/** The page of the double opt-in link (`/api/v2/subscribers/confirm`). */
export const confirm = catalogue({
  en: {
    title: 'Subscription confirmed',
    // phpList's own words (reference §5.5), which clients look for.
    confirmedHeading: 'Thank you, your subscription is confirmed!',
    onLists: 'You are now on these lists:',
    onNoList: 'You are not on any list at the moment.',
    manage: 'Manage your subscription',
    manageHint: 'Change your lists or your details, or unsubscribe, at any time.',
    missingTitle: 'Missing confirmation code.',
    missingText:
      'The link you opened has no confirmation code. Please open the whole link from the confirmation mail; if your mail program split it over two lines, copy all of it into the address bar.',
    unknownTitle: 'This confirmation link does not work',
    unknownText:
      "Subscriber isn't found or already confirmed. The link may be incomplete (copy the whole link from the mail), or the subscription was removed since. You can sign up again on the form you used.",
  },
  de: {
    title: 'Abonnement bestätigt',
    confirmedHeading: 'Vielen Dank, Ihr Abonnement ist bestätigt!',
    onLists: 'Sie stehen jetzt auf diesen Listen:',
    onNoList: 'Sie stehen zurzeit auf keiner Liste.',
    manage: 'Abonnement verwalten',
    manageHint: 'Listen oder Angaben ändern oder abbestellen – jederzeit.',
    missingTitle: 'Der Bestätigungscode fehlt.',
    missingText:
      'Dem geöffneten Link fehlt der Bestätigungscode. Bitte öffnen Sie den vollständigen Link aus der Bestätigungs-E-Mail; hat Ihr E-Mail-Programm ihn auf zwei Zeilen verteilt, kopieren Sie ihn ganz in die Adresszeile.',
    unknownTitle: 'Dieser Bestätigungslink funktioniert nicht',
    unknownText:
      'Die Anmeldung wurde nicht gefunden. Vielleicht ist der Link unvollständig (kopieren Sie den ganzen Link aus der E-Mail), oder das Abonnement wurde inzwischen entfernt. Sie können sich über das Formular erneut anmelden.',
  },
});
