import type { AppContext } from '../context.js';
import { BadRequestError, ConflictError, NotFoundError } from '../shared/errors.js';
import { toPage } from '../shared/pagination.js';
import * as repo from './admin-attribute.repository.js';
import type {
  AdminAttributeDefinition,
  AdminAttributeValue,
  AdminAttributeValueBody,
  CreateAdminAttributeDefinitionBody,
  UpdateAdminAttributeDefinitionBody,
} from './admin-attribute.schemas.js';
import { toAdministrator, type AdministratorRow } from './administrator.repository.js';
import { requireAdministrator } from './administrator.service.js';

/** What a definition gets when created without a type (reference §5.3 [core?] recommendation). */
const DEFAULT_TYPE = 'textline';

export async function requireDefinition(ctx: AppContext, id: number) {
  const row = await repo.findDefinition(ctx.db, id);
  if (!row) throw new NotFoundError('Attribute definition not found.');
  return row;
}

export async function getDefinition(ctx: AppContext, id: number): Promise<AdminAttributeDefinition> {
  return repo.toDefinition(await requireDefinition(ctx, id));
}

export async function listDefinitions(ctx: AppContext, afterId: number, limit: number) {
  const { rows, total } = await repo.listDefinitions(ctx.db, afterId, limit);
  return toPage(rows.map(repo.toDefinition), total, limit, (d) => d.id);
}

export async function createDefinition(ctx: AppContext, body: CreateAdminAttributeDefinitionBody): Promise<AdminAttributeDefinition> {
  const name = body.name.trim();
  if (await repo.definitionNameTaken(ctx.db, name)) throw new ConflictError('Attribute definition already exists.');
  const row = await repo.insertDefinition(ctx.db, {
    name,
    type: body.type ?? DEFAULT_TYPE,
    listOrder: body.order ?? null,
    defaultValue: body.default_value ?? null,
    required: body.required ?? false,
  });
  return repo.toDefinition(row);
}

/** `name` is replaced; the other fields change only when sent (an explicit null type means textline). */
export async function updateDefinition(ctx: AppContext, id: number, body: UpdateAdminAttributeDefinitionBody): Promise<AdminAttributeDefinition> {
  await requireDefinition(ctx, id);
  const name = body.name.trim();
  if (await repo.definitionNameTaken(ctx.db, name, id)) {
    throw new ConflictError('Another attribute with this name already exists.');
  }
  const row = await repo.updateDefinition(ctx.db, id, {
    name,
    ...(body.type !== undefined ? { type: body.type ?? DEFAULT_TYPE } : {}),
    ...(body.order !== undefined ? { listOrder: body.order } : {}),
    ...(body.default_value !== undefined ? { defaultValue: body.default_value } : {}),
    ...(body.required !== undefined ? { required: body.required } : {}),
  });
  if (!row) throw new NotFoundError('Attribute definition not found.');
  return repo.toDefinition(row);
}

export async function deleteDefinition(ctx: AppContext, id: number): Promise<void> {
  if (!(await repo.deleteDefinition(ctx.db, id))) throw new NotFoundError('Attribute definition not found.');
}

function toValue(admin: AdministratorRow, definition: repo.DefinitionRow, value: string | null): AdminAttributeValue {
  return {
    administrator: toAdministrator(admin),
    definition: repo.toDefinition(definition),
    value: value ?? definition.defaultValue,
  };
}

/**
 * The path entities of a value write, in phpList's order: the definition, then the administrator.
 * Runs before the body is validated (../shared/api/DECISIONS.md § Order of checks).
 */
export async function requireValueTarget(ctx: AppContext, adminId: number, definitionId: number) {
  const definition = await requireDefinition(ctx, definitionId);
  const admin = await requireAdministrator(ctx, adminId);
  return { admin, definition };
}

/** Creates or replaces a value. Absent or null means the definition's default; without one, 400. */
export async function setValue(ctx: AppContext, adminId: number, definitionId: number, body: AdminAttributeValueBody): Promise<AdminAttributeValue> {
  const { admin, definition } = await requireValueTarget(ctx, adminId, definitionId);
  const value = body.value ?? definition.defaultValue;
  if (value === null) throw new BadRequestError('Value is required');
  const row = await repo.upsertValue(ctx.db, admin.id, definition.id, value);
  return toValue(admin, definition, row.value);
}

export async function getValue(ctx: AppContext, adminId: number, definitionId: number): Promise<AdminAttributeValue> {
  const admin = await requireAdministrator(ctx, adminId);
  const found = await repo.findValue(ctx.db, admin.id, definitionId);
  if (!found) throw new NotFoundError('Administrator attribute not found.');
  return toValue(admin, found.definition, found.value.value);
}

export async function listValues(ctx: AppContext, adminId: number, afterDefinitionId: number, limit: number) {
  const admin = await requireAdministrator(ctx, adminId);
  const { rows, total } = await repo.listValues(ctx.db, admin.id, afterDefinitionId, limit);
  // Values have no id of their own, so next_cursor is null (reference §3); after_id is a definition id.
  return toPage(
    rows.map((r) => toValue(admin, r.definition, r.value.value)),
    total,
    limit,
    null,
  );
}

export async function deleteValue(ctx: AppContext, adminId: number, definitionId: number): Promise<void> {
  await requireAdministrator(ctx, adminId);
  if (!(await repo.deleteValue(ctx.db, adminId, definitionId))) {
    throw new NotFoundError('Administrator attribute not found.');
  }
}
