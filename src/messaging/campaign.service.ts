import { randomBytes } from 'node:crypto';
import { checkSelection } from '../segments/index.js';
import type { AppContext } from '../context.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { toPage } from '../shared/pagination.js';
import { campaignColumns, editorColumn } from './campaign-input.js';
import { figuresOf } from './campaign-figures.repository.js';
import * as repo from './campaign.repository.js';
import type { Campaign, CampaignBody, CampaignListItem, CampaignListQuery } from './campaign.schemas.js';
import { findTemplate } from './template.repository.js';

export const CAMPAIGN_NOT_FOUND = 'Campaign not found.';
const NO_TEMPLATE = 'Template with that id does not exists.';
/** Campaigns whose content may no longer change: being sent, or sent. */
const LOCKED_STATUSES = new Set(['inprocess', 'sent']);

/** New campaigns get 36 lowercase hex characters (reference §6.14). */
const newUniqueId = () => randomBytes(18).toString('hex');

export async function requireCampaign(ctx: AppContext, id: number): Promise<repo.CampaignRow> {
  const row = await repo.findCampaign(ctx.db, id);
  if (!row) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
  return row;
}

export async function getCampaign(ctx: AppContext, id: number): Promise<Campaign> {
  return repo.toCampaignView(ctx.db, await requireCampaign(ctx, id));
}

export async function listCampaigns(ctx: AppContext, ownerId: number, query: CampaignListQuery) {
  const limit = query.limit ?? 25;
  const { rows, total } = await repo.listOwnedCampaigns(
    ctx.db,
    ownerId,
    query.subject?.trim() || undefined,
    query.after_id ?? 0,
    limit,
    query.status,
  );
  const [views, figures] = await Promise.all([
    repo.toCampaignViews(ctx.db, rows),
    figuresOf(
      ctx.db,
      rows.map((r) => r.id),
    ),
  ]);
  const items: CampaignListItem[] = views.map((view) => ({ ...view, figures: figures.get(view.id)! }));
  return toPage(items, total, limit, (c) => c.id);
}

async function checkTemplate(ctx: AppContext, templateId: number | null | undefined) {
  if (templateId != null && !(await findTemplate(ctx.db, templateId))) throw new ConflictError(NO_TEMPLATE);
}

export async function createCampaign(ctx: AppContext, ownerId: number, body: CampaignBody): Promise<Campaign> {
  const columns = campaignColumns(body);
  await checkTemplate(ctx, body.template_id);
  await checkSelection(ctx.db, columns.userSelection);
  const row = await repo.insertCampaign(ctx.db, {
    name: columns.subject,
    ...columns,
    editor: editorColumn(body),
    uniqueId: newUniqueId(),
    ownerId,
    status: 'draft',
  });
  return repo.toCampaignView(ctx.db, row);
}

/** Replaces the campaign's groups (an omitted `template_id` clears the template, as phpList); status never changes. */
export async function updateCampaign(ctx: AppContext, id: number, body: CampaignBody): Promise<Campaign> {
  const current = await requireCampaign(ctx, id);
  if (LOCKED_STATUSES.has(current.status)) {
    throw new ConflictError(`A campaign that is ${current.status === 'sent' ? 'sent' : 'being sent'} cannot be edited; copy it instead.`);
  }
  const columns = campaignColumns(body);
  await checkTemplate(ctx, body.template_id);
  await checkSelection(ctx.db, columns.userSelection);
  const row = await repo.updateCampaign(ctx.db, id, { ...columns, editor: editorColumn(body, current) });
  if (!row) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
  return repo.toCampaignView(ctx.db, row);
}

export async function deleteCampaign(ctx: AppContext, id: number): Promise<void> {
  const current = await requireCampaign(ctx, id);
  if (current.status === 'inprocess') {
    throw new ConflictError('The campaign is being sent; suspend it before deleting it.');
  }
  if (!(await repo.deleteCampaign(ctx.db, id))) throw new NotFoundError(CAMPAIGN_NOT_FOUND);
}

/** A new draft with the same content, format, schedule, options and template; owner the caller; no lists, no counters. */
export async function copyCampaign(ctx: AppContext, id: number, ownerId: number): Promise<Campaign> {
  const source = await requireCampaign(ctx, id);
  const row = await repo.insertCampaign(ctx.db, {
    uniqueId: newUniqueId(),
    ownerId,
    templateId: source.templateId,
    subject: source.subject,
    name: source.name,
    body: source.body,
    textBody: source.textBody,
    footer: source.footer,
    editor: source.editor,
    sendFormat: source.sendFormat,
    htmlFormatted: source.htmlFormatted,
    embargo: source.embargo,
    repeatInterval: source.repeatInterval,
    repeatUntil: source.repeatUntil,
    requeueInterval: source.requeueInterval,
    requeueUntil: source.requeueUntil,
    fromField: source.fromField,
    toField: source.toField,
    replyTo: source.replyTo,
    userSelection: source.userSelection,
    clickTrack: source.clickTrack,
    status: 'draft',
  });
  return repo.toCampaignView(ctx.db, row);
}
