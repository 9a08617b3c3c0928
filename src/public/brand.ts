import type { AppContext } from '../context.js';
import { logoPath } from '../settings/index.js';

/*
 * The organisation's name and logo (issue 26), as the Settings screen set them: shown on every public page. Read
 * from the settings when a page is sent, so that a change applies at once, in every process, without a restart.
 */

export interface Brand {
  /** The organisation's name; '' when none is set. */
  readonly name: string;
  /** The logo's absolute address under PUBLIC_URL; null when none is set. */
  readonly logoUrl: string | null;
}

export function organisationBrand(ctx: AppContext): Brand {
  const { organisationName, logo } = ctx.settings.current;
  return { name: organisationName.trim(), logoUrl: logo ? logoPath(ctx.config.publicUrl, logo.sha256) : null };
}
