import { Parser } from 'htmlparser2';
import type { AppContext } from '../context.js';
import { findTemplate, isFullHttpUrl, linksNotFull, requireCampaign } from '../messaging/index.js';
import type { Check, CheckPart, Checks } from './campaign-preview.schemas.js';
import { KNOWN_PLACEHOLDERS } from './compose/compile.js';
import { attributeNames } from './compose/compose.repository.js';
import { looksLikeHtml, mergeContent } from './compose/content.js';
import { normaliseName, placeholdersIn } from './compose/placeholders.js';

/*
 * Checks before sending (issue 12): what would make a campaign go out broken or unwelcome, each with the part and
 * line it comes from so the console can point at it. HTML is read with htmlparser2 (its startIndex gives the tag's
 * offset); placeholders are found with the composer's own pattern, so what is flagged is what the sender would
 * leave unfilled.
 */

const UNSUBSCRIBE_NAMES = new Set(['UNSUBSCRIBE', 'UNSUBSCRIBEURL', 'BLACKLIST', 'BLACKLISTURL']);

/** 1-based line of each offset of `source`: newline offsets found once, then a binary search per lookup. */
function lineFinder(source: string): (offset: number) => number {
  const breaks: number[] = [];
  for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) breaks.push(i);
  return (offset) => {
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (breaks[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
}

/** Links and images of an HTML source that are not full URLs, with their lines. */
function htmlChecks(source: string, part: CheckPart): Check[] {
  const found: Check[] = [];
  const lineOf = lineFinder(source);
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const line = lineOf(parser.startIndex);
        if ((name === 'a' || name === 'area') && attribs.href !== undefined) {
          const href = attribs.href.trim();
          if (!href.startsWith('#') && !/^tel:/i.test(href) && linksNotFull([href]).length > 0) {
            found.push({
              code: 'link_not_full_url',
              message: `The link "${href}" is not a full URL (https://…): it will not work in a mail.`,
              part,
              line,
            });
          }
        }
        if (name === 'img' && attribs.src !== undefined) {
          const src = attribs.src.trim();
          if (!isFullHttpUrl(src) && !/^(data|cid):/i.test(src)) {
            found.push({
              code: 'image_not_full_url',
              message: `The image "${src}" is not a full URL (https://…): it will not show in a mail.`,
              part,
              line,
            });
          }
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(source);
  parser.end();
  return found;
}

/** `[if mso]`, `[endif]`: Outlook's conditional comments (`<!--[if mso]>…<![endif]-->`), which mail layouts use. */
const CONDITIONAL_COMMENT = /^\[\s*(?:if\s[^[\]]*|endif)\s*\]$/i;

function placeholderChecks(source: string, part: CheckPart, known: ReadonlySet<string>): Check[] {
  const lineOf = lineFinder(source);
  return placeholdersIn(source)
    .filter((use) => !use.hasDefault && !known.has(use.name) && !CONDITIONAL_COMMENT.test(use.written))
    .map((use) => ({
      code: 'unknown_placeholder' as const,
      message: `${use.written} is not a placeholder the sender knows (nor an attribute): it would go out as written.`,
      part,
      line: lineOf(use.index),
    }));
}

export async function campaignChecks(ctx: AppContext, campaignId: number): Promise<Checks> {
  const campaign = await requireCampaign(ctx, campaignId);
  const template = campaign.templateId === null ? undefined : await findTemplate(ctx.db, campaign.templateId);
  const known = new Set([...KNOWN_PLACEHOLDERS, ...(await attributeNames(ctx.db)).map(normaliseName)]);
  const textOnly = campaign.sendFormat === 'text';
  const warnings: Check[] = [];

  const sources: [string, CheckPart][] = [
    [campaign.body, 'body'],
    [campaign.textBody, 'text_message'],
    [campaign.footer, 'footer'],
    [template?.content ?? '', 'template'],
    [template?.text ?? '', 'template'],
  ];
  const unsubscribe = sources.some(([source]) => placeholdersIn(source).some((use) => UNSUBSCRIBE_NAMES.has(use.name)));
  if (!unsubscribe) {
    warnings.push({
      code: 'no_unsubscribe_link',
      message: 'There is no unsubscribe link: add [UNSUBSCRIBE] or [UNSUBSCRIBEURL] to the body or the footer.',
      part: null,
      line: null,
    });
  }
  warnings.push(...placeholderChecks(campaign.subject, 'subject', known));
  if (!textOnly || looksLikeHtml(campaign.body)) warnings.push(...htmlChecks(campaign.body, 'body'));
  warnings.push(...placeholderChecks(campaign.body, 'body', known));
  warnings.push(...placeholderChecks(campaign.textBody, 'text_message', known));
  warnings.push(...placeholderChecks(campaign.footer, 'footer', known));
  if (template?.content && !textOnly) warnings.push(...htmlChecks(template.content, 'template'));

  const merged = mergeContent({
    textOnly,
    body: campaign.body,
    textBody: campaign.textBody,
    footer: campaign.footer,
    templateHtml: template?.content ?? null,
    templateText: template?.text ?? null,
  });
  if (!merged.text.trim()) {
    warnings.push({
      code: 'empty_text_part',
      message: 'The plain-text part is empty: people whose mail shows text only would get a blank message.',
      part: 'text_message',
      line: null,
    });
  }
  return { warnings };
}
