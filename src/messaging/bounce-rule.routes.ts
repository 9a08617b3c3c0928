import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { callerOf } from '../plugins/auth.js';
import { rawPathId } from '../plugins/http.js';
import { errorResponses } from '../shared/schemas.js';
import { BounceRegex, BounceRegexBody, BounceRuleParams, BounceRuleTestBody, BounceRuleTestResult } from './bounce-rule.schemas.js';
import * as service from './bounce-rule.service.js';

const tags = ['bounce rules'];
export const BOUNCE_RULES_DENIED = 'You are not allowed to manage bounce rules.';

export const bounceRuleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireAuth('settings', BOUNCE_RULES_DENIED);

  app.get(
    '/bounces/regex',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'listBounceRules',
        summary: 'Every bounce rule, in the order they are applied (list_order, then id)',
        response: { 200: Type.Array(BounceRegex), ...errorResponses(403) },
      },
    },
    async () => service.listRules(app.ctx),
  );

  app.get(
    '/bounces/regex/:ruleId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'getBounceRule',
        summary: 'Read one bounce rule',
        params: BounceRuleParams,
        response: { 200: BounceRegex, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.getRule(app.ctx, request.params.ruleId),
  );

  app.post(
    '/bounces/regex',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'createBounceRule',
        summary: 'Create a bounce rule (the caller is its admin_id)',
        body: BounceRegexBody,
        response: { 201: BounceRegex, ...errorResponses(400, 403, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.createRule(app.ctx, request.body, callerOf(request).id)),
  );

  app.post(
    '/bounces/regex/test',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'testBounceRule',
        summary: 'Try a pattern on a pasted bounce text, with the engine bounce processing uses (Mailroom addition)',
        description:
          "Nothing is stored. The pattern is compiled as a rule's would be (422 at `regex` saying why not) and searched " +
          `in the first 20,000 characters of \`text\`, as bounce processing does. At most ${service.TESTS_PER_MINUTE} tries a minute per administrator (429).`,
        body: BounceRuleTestBody,
        response: { 200: BounceRuleTestResult, ...errorResponses(400, 403, 422, 429) },
      },
    },
    async (request) => service.testRule(app.ctx, request.body, callerOf(request).id),
  );

  app.put(
    '/bounces/regex/:ruleId',
    {
      onRequest: guard,
      preValidation: async (request) => {
        await service.requireRule(app.ctx, rawPathId(request, 'ruleId'));
      },
      schema: {
        tags,
        operationId: 'updateBounceRule',
        summary: 'Replace a bounce rule (201, as phpList)',
        params: BounceRuleParams,
        body: BounceRegexBody,
        response: { 201: BounceRegex, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.updateRule(app.ctx, request.params.ruleId, request.body)),
  );

  app.delete(
    '/bounces/regex/:ruleId',
    {
      onRequest: guard,
      schema: {
        tags,
        operationId: 'deleteBounceRule',
        summary: 'Delete a bounce rule',
        params: BounceRuleParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.deleteRule(app.ctx, request.params.ruleId);
      return reply.code(204).send();
    },
  );
};
