import type { AppContext } from '../context.js';
import { findPage, pageData, type PageLook } from '../subscription/index.js';
import { pickLanguage, type Lang } from '../shared/i18n.js';

/**
 * The language and look a page takes from a subscribe page (the one a person signed up on, named in the links we
 * mail them), or from the browser alone when there is none, or it is unknown or inactive.
 */
export interface PageContext {
  readonly lang: Lang;
  readonly look?: PageLook;
  readonly siteName?: string;
  readonly footer?: string | null;
}

export async function pageContext(ctx: AppContext, pageId: string | undefined, acceptLanguage: string | undefined): Promise<PageContext> {
  const id = pageId && /^\d{1,10}$/.test(pageId) && Number(pageId) <= 2_147_483_647 ? Number(pageId) : null;
  const found = id !== null ? await findPage(ctx.db, id) : undefined;
  if (!found || !found.page.active) return { lang: pickLanguage(null, acceptLanguage) };
  const data = new Map((await pageData(ctx.db, found.page.id)).map((r) => [r.name, r.data]));
  return {
    lang: pickLanguage(data.get('language'), acceptLanguage),
    look: { logoUrl: data.get('logo_url'), accentColor: data.get('accent_color'), customCss: data.get('custom_css') },
    siteName: found.page.title,
    footer: data.get('footer'),
  };
}
