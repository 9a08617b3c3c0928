import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { rawPathId } from '../plugins/http.js';
import { PayloadTooLargeError } from '../shared/errors.js';
import { Page, PageQuery, cursorOf } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { asClientError, fieldText, formBoolean, formInteger, formParts } from '../plugins/multipart-form.js';
import { DEFAULT_TEMPLATES } from './template-defaults.js';
import {
  DefaultTemplate,
  DefaultTemplateParams,
  Template,
  TemplateBody,
  TemplateCheckBody,
  TemplateCheckResult,
  TemplateParams,
} from './template.schemas.js';
import * as service from './template.service.js';

const tags = ['templates'];
export const TEMPLATES_DENIED = 'You are not allowed to manage templates.';
const BOOLEAN_FIELDS = new Set(['check_links', 'check_images', 'check_external_images']);

/** The uploaded `file` of a multipart create or update, kept beside the (validated) body. */
const uploads = new WeakMap<FastifyRequest, Buffer>();

export const templateRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('campaigns', TEMPLATES_DENIED);
  // A template file is stored in the database like the JSON body, so it is held to the JSON body limit.
  const fileLimit = app.ctx.config.bodyLimit;
  await app.register(multipart, { limits: { fileSize: fileLimit, files: 2, fields: 20, fieldSize: fileLimit } });

  /**
   * A multipart body becomes the object the JSON body would be: text fields as they are, booleans and the list
   * order read from their text, the `file` part's bytes set aside. JSON bodies pass through untouched.
   */
  const readForm = async (request: FastifyRequest) => {
    if (!request.isMultipart()) return;
    const body: Record<string, unknown> = {};
    try {
      for await (const part of formParts(request)) {
        if (part.type === 'file') {
          const bytes = await part.toBuffer();
          if (part.fieldname === 'file' && !uploads.has(request)) uploads.set(request, bytes);
          continue;
        }
        const name = part.fieldname;
        if (part.valueTruncated) throw new PayloadTooLargeError(`The field "${name}" is larger than ${fileLimit} bytes.`);
        if (Object.hasOwn(body, name)) continue;
        const text = fieldText(part);
        body[name] = BOOLEAN_FIELDS.has(name) ? formBoolean(text) : name === 'list_order' ? formInteger(text) : text;
      }
    } catch (err) {
      throw asClientError(err, fileLimit);
    }
    request.body = body;
  };

  const consumes = ['application/json', 'multipart/form-data'];
  const bodyDescription =
    'JSON, or multipart/form-data with the same fields and an optional `file` part: its contents (UTF-8 HTML) ' +
    "become the template's content in place of `content`, held to the same rules (reported at `file`), as in phpList core.";

  app.get(
    '/templates',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listTemplates',
        summary: 'List templates with their images (cursor pages)',
        querystring: PageQuery,
        response: { 200: Page(Template), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { afterId, limit } = cursorOf(request.query);
      return service.listTemplates(app.ctx, afterId, limit);
    },
  );

  app.get(
    '/templates/defaults',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listDefaultTemplates',
        summary: 'The built-in templates a template can be created from',
        response: { 200: { type: 'array', items: DefaultTemplate }, ...errorResponses(403) },
      },
    },
    async () => DEFAULT_TEMPLATES,
  );

  app.post(
    '/templates/defaults/:key',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'createTemplateFromDefault',
        summary: 'Create a template from a built-in one (its name becomes the title)',
        params: DefaultTemplateParams,
        response: { 201: Template, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createFromDefault(app.ctx, request.params.key)),
  );

  app.get(
    '/templates/:templateId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getTemplate',
        summary: 'Read one template with its images',
        params: TemplateParams,
        response: { 200: Template, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getTemplate(app.ctx, request.params.templateId),
  );

  app.post(
    '/templates',
    {
      onRequest: guard,
      preValidation: readForm,
      schema: {
        tags,
        operationId: 'createTemplate',
        summary: 'Create a template',
        description: bodyDescription,
        consumes,
        body: TemplateBody,
        response: { 201: Template, ...errorResponses(400, 403, 409, 413, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createTemplate(app.ctx, request.body, uploads.get(request) ?? null)),
  );

  app.post(
    '/templates/check',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'checkTemplate',
        summary: 'Run the rules and checks of a save on HTML and text without saving them (ours)',
        description:
          'The console checks an edit before it is saved. The same rules as create and update ([CONTENT] in the HTML ' +
          'and in the text when given) and the chosen checks; 200 `{ ok: true }` when nothing fails, else the 422 the ' +
          'save would answer, each failure at `content` or `text`. Nothing is stored.',
        body: TemplateCheckBody,
        response: { 200: TemplateCheckResult, ...errorResponses(400, 403, 413, 422) },
      },
    },
    async (request) => service.checkTemplate(app.ctx, request.body),
  );

  app.put(
    '/templates/:templateId',
    {
      onRequest: guard,
      // 404 comes before the body is read and validated (../shared/api/DECISIONS.md § Order of checks).
      preValidation: async (request) => {
        await service.requireTemplate(app.ctx, rawPathId(request, 'templateId'));
        await readForm(request);
      },
      schema: {
        tags,
        operationId: 'updateTemplate',
        summary: 'Update a template (201, as phpList): title replaced; content, text, list order and file only when sent',
        description: bodyDescription,
        consumes,
        params: TemplateParams,
        body: TemplateBody,
        response: { 201: Template, ...errorResponses(400, 403, 404, 409, 413, 422) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await service.updateTemplate(app.ctx, request.params.templateId, request.body, uploads.get(request) ?? null)),
  );

  app.delete(
    '/templates/:templateId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteTemplate',
        summary: 'Delete a template and its images; campaigns using it keep going without one',
        params: TemplateParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.deleteTemplate(app.ctx, request.params.templateId);
      return reply.code(204).send();
    },
  );
};
