import { catalogue } from '../../shared/i18n.js';

/** The pages of links that do not work (forged, garbled, expired) and of limits reached. */
export const errors = catalogue({
  en: {
    invalidTitle: 'This link does not work',
    invalidText: 'The link is incomplete or was changed. Links in our mails are long: copy the whole link, or open it straight from the mail.',
    invalidHelp: 'To manage your subscription, use the link at the bottom of any recent mail from us.',
    expiredTitle: 'This link has expired',
    expiredText: 'For your safety, links like this one work for a limited time only.',
    expiredHelp: 'Use the link at the bottom of a more recent mail from us, or ask for the change again.',
    tooManyTitle: 'Please wait a moment',
    tooManyText: 'We received too many requests from your address. Please try again in {minutes} minutes.',
    badFormTitle: 'Something went wrong',
    badFormText: 'We could not read what was sent. Please go back and try again.',
    takenTitle: 'The address could not be changed',
    takenText: 'This address cannot be used for your subscription. Your old address stays as it was.',
  },
  de: {
    invalidTitle: 'Dieser Link funktioniert nicht',
    invalidText:
      'Der Link ist unvollständig oder wurde verändert. Links in unseren E-Mails sind lang: Kopieren Sie den ganzen Link oder öffnen Sie ihn direkt aus der E-Mail.',
    invalidHelp: 'Um Ihr Abonnement zu verwalten, nutzen Sie den Link am Ende einer unserer letzten E-Mails.',
    expiredTitle: 'Dieser Link ist abgelaufen',
    expiredText: 'Zu Ihrer Sicherheit gelten solche Links nur für eine begrenzte Zeit.',
    expiredHelp: 'Nutzen Sie den Link am Ende einer neueren E-Mail von uns oder fordern Sie die Änderung erneut an.',
    tooManyTitle: 'Bitte einen Moment Geduld',
    tooManyText: 'Wir haben zu viele Anfragen von Ihrer Adresse erhalten. Bitte versuchen Sie es in {minutes} Minuten erneut.',
    badFormTitle: 'Etwas ist schiefgegangen',
    badFormText: 'Wir konnten die gesendeten Daten nicht lesen. Bitte gehen Sie zurück und versuchen Sie es erneut.',
    takenTitle: 'Die Adresse konnte nicht geändert werden',
    takenText: 'Diese Adresse kann für Ihr Abonnement nicht verwendet werden. Ihre bisherige Adresse bleibt bestehen.',
  },
});
