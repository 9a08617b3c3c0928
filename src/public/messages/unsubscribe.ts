import { catalogue } from '../../shared/i18n.js';

/** The unsubscribe page (the List-Unsubscribe link: src/public/unsubscribe.*). */
export const unsubscribe = catalogue({
  en: {
    title: 'Unsubscribe',
    ask: 'Unsubscribe {email} from {lists}?',
    askText: 'You will get no more mail from these lists. Your other subscriptions stay as they are.',
    reasonLabel: 'Why are you leaving? (optional)',
    reasonHint: 'Only the list owners read this.',
    button: 'Unsubscribe',
    doneTitle: 'You are unsubscribed',
    done: '{email} has been unsubscribed from {lists}.',
    nothingTitle: 'Nothing to unsubscribe',
    nothing: '{email} is not on any list this campaign was sent to.',
    resubscribeText: 'Unsubscribed by mistake? You can undo it for the next {days} days.',
    resubscribeButton: 'Resubscribe',
    resubscribedTitle: 'Welcome back',
    resubscribed: '{email} is subscribed to {lists} again.',
    manageLink: 'Manage all your subscriptions',
    forwarded: 'This message was forwarded to you by a subscriber. Your address is not on our lists, and nothing more will be sent to it.',
    invalidTitle: 'Unknown unsubscribe link',
  },
  de: {
    title: 'Abmelden',
    ask: '{email} von {lists} abmelden?',
    askText: 'Sie erhalten dann keine E-Mails dieser Listen mehr. Ihre anderen Abonnements bleiben bestehen.',
    reasonLabel: 'Warum melden Sie sich ab? (freiwillig)',
    reasonHint: 'Das lesen nur die Betreiber der Listen.',
    button: 'Abmelden',
    doneTitle: 'Sie sind abgemeldet',
    done: '{email} wurde von {lists} abgemeldet.',
    nothingTitle: 'Nichts abzumelden',
    nothing: '{email} steht auf keiner Liste, an die diese Aussendung ging.',
    resubscribeText: 'Versehentlich abgemeldet? Sie können das noch {days} Tage lang rückgängig machen.',
    resubscribeButton: 'Wieder anmelden',
    resubscribedTitle: 'Willkommen zurück',
    resubscribed: '{email} ist wieder bei {lists} angemeldet.',
    manageLink: 'Alle Abonnements verwalten',
    forwarded:
      'Diese Nachricht wurde Ihnen von einem Abonnenten weitergeleitet. Ihre Adresse steht nicht auf unseren Listen, und wir senden ihr nichts weiter.',
    invalidTitle: 'Unbekannter Abmeldelink',
  },
});
