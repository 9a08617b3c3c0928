import type { AppContext } from '../context.js';
import {
  loadDefinitionsWithOptions,
  publicListsAmong,
  idsOf,
  requireLivePage,
  signUp as joinOnPage,
  type DefinitionWithOptions,
  type ListRow,
  type PageRow,
  type HistoryOrigin,
  type PageLook,
} from '../subscription/index.js';
import { pickLanguage, type Lang } from '../shared/i18n.js';
import type { CheckedSignup } from './signup.form.js';

/*
 * The hosted sign-up form of a subscribe page (`/subscribe/{id}`): what it shows. What a sign-up does is
 * subscription's one sign-up (subscription/signup.service.ts), which the JSON API uses too. Whatever the address's
 * state, the visitor sees the same thank-you page; only the address's owner learns anything, by mail.
 */

export interface SignupForm {
  readonly id: number;
  readonly title: string;
  readonly data: ReadonlyMap<string, string | null>;
  readonly lists: readonly ListRow[];
  readonly attributes: readonly DefinitionWithOptions[];
  readonly lang: Lang;
  /** Double opt-in unless the page's `double_optin` setting is `0`/`no`/`false`/`off`. */
  readonly doubleOptIn: boolean;
  /** The page's `emaildoubleentry` setting (phpList): the address is typed twice. */
  readonly emailTwice: boolean;
  readonly look: PageLook;
}

const NO = new Set(['0', 'no', 'false', 'off']);
const YES = new Set(['1', 'yes', 'true', 'on']);
const flag = (value: string | null | undefined) => value?.trim().toLowerCase() ?? '';

/** An active page as its form shows it; an unknown or inactive page is a NotFoundError. */
export async function loadSignupForm(ctx: AppContext, pageId: number, acceptLanguage: string | undefined): Promise<SignupForm> {
  const live = await requireLivePage(ctx, pageId);
  return buildSignupForm(ctx, live.page, live.data, acceptLanguage);
}

/** A page (active or not: the embed snippet of a page not yet live) as its form shows it. */
export async function buildSignupForm(
  ctx: AppContext,
  page: PageRow,
  data: ReadonlyMap<string, string | null>,
  acceptLanguage: string | undefined,
): Promise<SignupForm> {
  const listIds = idsOf(data.get('lists'));
  const attributeIds = idsOf(data.get('attributes'));
  const [lists, definitions] = await Promise.all([publicListsAmong(ctx.db, listIds), loadDefinitionsWithOptions(ctx.db)]);
  const listById = new Map(lists.map((l) => [l.id, l]));
  const definitionById = new Map(definitions.map((d) => [d.id, d]));
  return {
    id: page.id,
    title: page.title,
    data,
    lists: listIds.map((id) => listById.get(id)).filter((l): l is ListRow => l !== undefined),
    attributes: attributeIds.map((id) => definitionById.get(id)).filter((d): d is DefinitionWithOptions => d !== undefined),
    lang: pickLanguage(data.get('language'), acceptLanguage),
    doubleOptIn: !NO.has(flag(data.get('double_optin'))),
    emailTwice: YES.has(flag(data.get('emaildoubleentry'))),
    look: { logoUrl: data.get('logo_url'), accentColor: data.get('accent_color'), customCss: data.get('custom_css') },
  };
}

/**
 * One sign-up from the form (already checked): subscription's one sign-up (its limits first, then the transaction
 * that writes the subscriber, the lists and the queued mail), which the JSON API uses too. Throws
 * TooManyRequestsError past the limits.
 */
export async function signUp(ctx: AppContext, form: SignupForm, signup: CheckedSignup, origin: HistoryOrigin): Promise<void> {
  const chosen = form.lists.filter((l) => signup.listIds.includes(l.id));
  await joinOnPage(
    ctx,
    {
      page: { id: form.id, title: form.title },
      lang: form.lang,
      email: signup.email,
      lists: chosen,
      values: signup.values,
      doubleOptIn: form.doubleOptIn,
    },
    origin,
  );
}
