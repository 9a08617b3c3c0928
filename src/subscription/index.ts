/*
 * Subscription: lists, subscribers, attributes, blacklist, subscribe pages, history.
 * What other areas may use: they import it from this file, never from the files below (eslint enforces it;
 * see "Areas and their boundaries" in README.md). Route plugins are not here: app.ts registers them.
 * The *.repository exports are reads and writes that public's sign-up and preference pages run inside their own
 * transactions; service-level functions could replace them one by one. Leaving lists is leave.service.ts's alone.
 */
export { defaultAsValue } from './attribute-default.js';
export { checkAttributeValue, displayAttributeValue } from './attribute-value.rules.js';
export { loadDefinitionsWithOptions } from './attribute.repository.js';
export type { DefinitionWithOptions } from './attribute.repository.js';
export { MAX_VALUE_LENGTH, OPTION_TYPES } from './attribute.schemas.js';
export { blacklistedAmong } from './blacklist.repository.js';
export { collectEmailSearchMetrics, startEmailSearchFold } from './email-search.fold.js';
export { emailMatchSql } from './email-search.repository.js';
export { originOf } from './history-origin.js';
export { LEAVE_LOCK, STILL_IN_AUDIENCE } from './leave.repository.js';
export { leave, leaveInTransaction, previewLeave } from './leave.service.js';
export type { LeaveScope, Left, LeftList } from './leave.service.js';
export { JOIN_TOKEN_DAYS } from './list-join-token.js';
export { findSubscribersByEmails, insertSubscribers, insertSubscriptions, joinLists } from './list-member.repository.js';
export { toSubscriberList } from './list.repository.js';
export type { ListRow } from './list.repository.js';
export { SubscriberList } from './list.schemas.js';
export { requireList } from './list.service.js';
export { accentVariables, logoUrl, safeCustomCss } from './page-look.js';
export type { PageLook } from './page-look.js';
export { idsOf, requireLivePage } from './subscribe-page-public.service.js';
export { checkSignUpValues } from './signup.check.js';
export type { ValueProblem } from './signup.check.js';
export { joinByToken, peekJoin, signUp } from './signup.service.js';
export type { JoinTarget, SignUp } from './signup.service.js';
export { findPage, isMember, pageData, publicListsAmong, upsertAttributeValues } from './subscribe-page.repository.js';
export type { PageRow } from './subscribe-page.repository.js';
export { SubscribePageParams } from './subscribe-page.schemas.js';
export { requirePage } from './subscribe-page.service.js';
export { confirmByLink, confirmationLink, registerConfirmationMail } from './subscriber-confirmation.js';
export { ADDRESS_NOT_BLACKLISTED, countBlacklistedWithFlags, countSendable, ON_SOME_LIST, SENDABLE_FLAGS } from './sendable.repository.js';

export { newSubscriberHtmlEmail } from './subscriber-defaults.js';
export { insertHistory } from './subscriber-history.repository.js';
export type { HistoryOrigin } from './subscriber-history.schemas.js';
export { isEmail } from './subscriber-import.columns.js';
export { findSubscriberByUniqueId, findSubscriberId, updateSubscriber } from './subscriber.repository.js';
export type { SubscriberRow } from './subscriber.repository.js';
export { decodeSubscriberToken, decodeUnsubscribeToken, encodeSubscriberToken, unsubscribeUrl } from './unsubscribe-token.js';
