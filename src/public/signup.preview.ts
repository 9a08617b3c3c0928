import type { AppContext } from '../context.js';
import { pageData, requirePage } from '../subscription/index.js';
import { organisationBrand } from './brand.js';
import { STYLESHEET, STYLESHEET_PATH } from './stylesheet.js';
import { formPage, noListsPage } from './signup.pages.js';
import { buildSignupForm } from './signup.service.js';

/*
 * What the console's preview of a subscribe page shows: the hosted page exactly as a visitor would get it once the
 * page is active (the form, or the "not open yet" page when it offers no list), for active and inactive pages alike.
 * The hosted page itself cannot be framed (`frame-ancestors 'none'`, and an inactive page is a 404), so the console
 * puts this document into a sandboxed frame of its own. The shared stylesheet is written in, so the frame needs to
 * fetch nothing but the logo.
 */

export interface SignupPreview {
  html: string;
  /** Origins of the images the page shows (its logo, or the organisation's): what the frame's policy must allow. */
  image_origins: string[];
}

export async function signupPreview(ctx: AppContext, pageId: number): Promise<SignupPreview> {
  const { page } = await requirePage(ctx, pageId);
  const data = new Map((await pageData(ctx.db, page.id)).map((r) => [r.name, r.data]));
  const form = await buildSignupForm(ctx, page, data, undefined);
  const rendered = form.lists.length === 0 ? noListsPage(form) : formPage(form);
  const branded = rendered.withBrand ? rendered.withBrand(organisationBrand(ctx)) : rendered;
  const link = `<link rel="stylesheet" href="${STYLESHEET_PATH}">`;
  // Our own stylesheet has no `<`, so it cannot end the element it is written into.
  const html = branded.html.replace(link, () => `<style>${STYLESHEET.replaceAll('<', '')}</style>`);
  return { html, image_origins: [...(branded.policy.imageOrigins ?? [])] };
}
