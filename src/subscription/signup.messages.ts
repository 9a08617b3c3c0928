import { catalogue } from '../shared/i18n.js';

/** The mails of a sign-up on a subscribe page (form or API), in the page's language. */
export const signupMail = catalogue({
  en: {
    mailSubject: 'Please confirm your subscription',
    mailGreeting: 'Hello,',
    mailBody: 'Someone, hopefully you, asked to subscribe this address to: {lists}.',
    mailAction: 'To confirm, please open this link:',
    mailIgnore: 'If you did not ask for this, ignore this message: nothing more will be sent.',
    joinSubject: 'Please confirm your subscription',
    joinBody: 'Someone, hopefully you, asked to add this address to more of our lists. To join a list, open its link (valid for {days} days):',
  },
  de: {
    mailSubject: 'Bitte bestätigen Sie Ihr Abonnement',
    mailGreeting: 'Hallo,',
    mailBody: 'Jemand, hoffentlich Sie, möchte diese Adresse anmelden für: {lists}.',
    mailAction: 'Zur Bestätigung öffnen Sie bitte diesen Link:',
    mailIgnore: 'Wenn Sie das nicht waren, ignorieren Sie diese Nachricht einfach: Wir schicken nichts weiter.',
    joinSubject: 'Bitte bestätigen Sie Ihr Abonnement',
    joinBody:
      'Jemand, hoffentlich Sie, möchte diese Adresse für weitere unserer Listen anmelden. Um einer Liste beizutreten, öffnen Sie ihren Link (gültig für {days} Tage):',
  },
});
