import { catalogue } from '../../shared/i18n.js';

/** The page of a list-join link (`/api/v2/public/list-subscriptions/confirm`). */
export const listJoin = catalogue({
  en: {
    askTitle: 'Join this list?',
    askText: 'Someone, hopefully you, asked to add your address to the list "{list}". Press the button to join it.',
    askButton: 'Join the list',
    // phpList's own words for a confirmed subscription (reference §5.5), which clients look for.
    joinedHeading: 'Thank you, your subscription is confirmed!',
    joinedText: 'You are now on the list "{list}".',
    missingTitle: 'Missing confirmation code.',
    missingText: 'The link you opened has no code. Please open the whole link from the mail.',
    unknownTitle: 'This link is not valid or has expired.',
    unknownText: 'The link may be incomplete or older than its few days. You can sign up again on the form you used.',
  },
  de: {
    askTitle: 'Dieser Liste beitreten?',
    askText: 'Jemand, hoffentlich Sie, möchte Ihre Adresse der Liste „{list}“ hinzufügen. Drücken Sie die Schaltfläche, um beizutreten.',
    askButton: 'Der Liste beitreten',
    joinedHeading: 'Vielen Dank, Ihr Abonnement ist bestätigt!',
    joinedText: 'Sie stehen jetzt auf der Liste „{list}“.',
    missingTitle: 'Der Bestätigungscode fehlt.',
    missingText: 'Dem geöffneten Link fehlt der Code. Bitte öffnen Sie den vollständigen Link aus der E-Mail.',
    unknownTitle: 'Dieser Link ist ungültig oder abgelaufen.',
    unknownText: 'Der Link ist vielleicht unvollständig oder älter als einige Tage. Sie können sich auf demselben Formular erneut anmelden.',
  },
});
