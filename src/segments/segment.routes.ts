import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { callerOf } from '../plugins/auth.js';
import { Page, PageQuery } from '../shared/pagination.js';
import { errorResponses } from '../shared/schemas.js';
import { DefinitionBody, MatchPage, MatchPageQuery, PreviewBody, Segment, SegmentBody, SegmentCount, SegmentParams } from './segment.schemas.js';
import * as service from './segment.service.js';

const tags = ['segments'];
export const SEGMENTS_DENIED = 'You are not allowed to manage segments.';

/** Saved segments and what they match (docs/api.md "Segments"). Subscribers privilege: segments read subscribers. */
export const segmentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const onRequest = app.requireAuth('subscribers', SEGMENTS_DENIED);

  app.get(
    '/segments',
    {
      onRequest,
      schema: {
        tags,
        operationId: 'listSegments',
        summary: 'Saved segments (cursor pages)',
        querystring: PageQuery,
        response: { 200: Page(Segment), ...errorResponses(403) },
      },
    },
    async (request) => service.list(app.ctx, request.query),
  );

  app.post(
    '/segments',
    {
      onRequest,
      schema: {
        tags,
        operationId: 'createSegment',
        summary: 'Save a segment; its definition is checked (422 names the path of each bad condition)',
        body: SegmentBody,
        response: { 201: Segment, ...errorResponses(400, 403, 409, 422) },
      },
    },
    async (request, reply) => reply.code(201).send(await service.create(app.ctx, request.body, callerOf(request).id)),
  );

  app.post(
    '/segments/count',
    {
      onRequest,
      schema: {
        tags,
        operationId: 'countSegmentDefinition',
        summary: 'How many subscribers an unsaved definition matches now',
        body: DefinitionBody,
        response: { 200: SegmentCount, ...errorResponses(400, 403, 422) },
      },
    },
    async (request) => service.countUnsaved(app.ctx, request.body.definition),
  );

  app.post(
    '/segments/subscribers',
    {
      onRequest,
      schema: {
        tags,
        operationId: 'previewSegmentDefinition',
        summary: 'A page of the subscribers an unsaved definition matches, by id (after_id pages on)',
        body: PreviewBody,
        response: { 200: MatchPage, ...errorResponses(400, 403, 422) },
      },
    },
    async (request) => service.matchingUnsaved(app.ctx, request.body),
  );

  app.get(
    '/segments/:segmentId',
    {
      onRequest,
      schema: {
        tags,
        operationId: 'getSegment',
        summary: 'One saved segment',
        params: SegmentParams,
        response: { 200: Segment, ...errorResponses(403, 404) },
      },
    },
    async (request) => service.get(app.ctx, request.params.segmentId),
  );

  app.put(
    '/segments/:segmentId',
    {
      onRequest,
      schema: {
        tags,
        operationId: 'updateSegment',
        summary: 'Replace a segment’s name, description and definition',
        params: SegmentParams,
        body: SegmentBody,
        response: { 200: Segment, ...errorResponses(400, 403, 404, 409, 422) },
      },
    },
    async (request) => service.update(app.ctx, request.params.segmentId, request.body),
  );

  app.delete(
    '/segments/:segmentId',
    {
      onRequest,
      schema: {
        tags,
        operationId: 'deleteSegment',
        summary: 'Delete a segment (campaigns already submitted keep the definition they were sent with)',
        params: SegmentParams,
        response: { 204: { type: 'null', description: 'Deleted' }, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await service.remove(app.ctx, request.params.segmentId);
      return reply.code(204).send();
    },
  );

  app.get(
    '/segments/:segmentId/count',
    {
      onRequest,
      schema: {
        tags,
        operationId: 'countSegment',
        summary: 'How many subscribers a saved segment matches now',
        params: SegmentParams,
        response: { 200: SegmentCount, ...errorResponses(403, 404, 422) },
      },
    },
    async (request) => service.countSaved(app.ctx, request.params.segmentId),
  );

  app.get(
    '/segments/:segmentId/subscribers',
    {
      onRequest,
      schema: {
        tags,
        operationId: 'listSegmentSubscribers',
        summary: 'A page of the subscribers a saved segment matches, by id (after_id pages on)',
        params: SegmentParams,
        querystring: MatchPageQuery,
        response: { 200: MatchPage, ...errorResponses(403, 404, 422) },
      },
    },
    async (request) => service.matchingSaved(app.ctx, request.params.segmentId, request.query),
  );
};
