import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { callerOf } from '../plugins/auth.js';
import { ForbiddenError, UnsupportedMediaTypeError } from '../shared/errors.js';
import { errorResponses } from '../shared/schemas.js';
import { deleteLogo, LOGO_MAX_BYTES, LOGO_TYPES, putLogo, readLogo } from './logo.js';
import { Settings, SettingsPatch, SmtpTestBody, SmtpTestResult } from './settings.schemas.js';
import { patchSettings, settingsView, testConnection } from './settings.service.js';

const tags = ['settings'];
export const SETTINGS_DENIED = 'Only super users may see and change the settings.';

/** The console's Settings (issue 26; docs/api.md "Settings"). Super users only: they hold SMTP credentials. */
export const settingsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const signedIn = app.requireAuth();
  const superUser = [
    signedIn,
    async (request: Parameters<typeof signedIn>[0]) => {
      if (!callerOf(request).superUser) throw new ForbiddenError(SETTINGS_DENIED);
    },
  ];
  // The logo arrives as the image's own bytes (any image/* type: which one it is is read from the bytes).
  app.addContentTypeParser(/^image\//, { parseAs: 'buffer', bodyLimit: LOGO_MAX_BYTES }, (_request, body, done) => done(null, body));

  app.get(
    '/settings',
    {
      onRequest: superUser,
      schema: {
        tags,
        operationId: 'getSettings',
        summary: 'The settings that apply, which environment variables set some, and PUBLIC_URL (Mailroom addition)',
        description: 'SMTP passwords are never returned: a server shows `has_password`.',
        response: { 200: Settings, ...errorResponses(401, 403) },
      },
    },
    async () => settingsView(app.ctx),
  );

  app.patch(
    '/settings',
    {
      onRequest: superUser,
      schema: {
        tags,
        operationId: 'updateSettings',
        summary: 'Change some settings (absent fields stay); every process applies them within SETTINGS_POLL_MS',
        description:
          'A field an environment variable sets is refused with 422 naming the field and the variable. ' +
          'An SMTP server given without `password` keeps the password stored for the same URL.',
        body: SettingsPatch,
        response: { 200: Settings, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request) => patchSettings(app.ctx, request.body, callerOf(request).id),
  );

  app.post(
    '/settings/smtp-test',
    {
      onRequest: superUser,
      schema: {
        tags,
        operationId: 'testSmtpServer',
        summary: 'Test connection: one SMTP session, step by step, with what the server answered at each',
        description:
          'The server given, or else the first that applies. Loopback, private and link-local addresses are refused ' +
          '(a failed `address` step) unless WEBHOOK_ALLOW_PRIVATE=1. With `send_to`, a test message is sent. ' +
          'A failing server is a 200 with `ok: false`.',
        body: SmtpTestBody,
        response: { 200: SmtpTestResult, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request) => testConnection(app.ctx, request.body),
  );

  app.put(
    '/settings/logo',
    {
      onRequest: superUser,
      schema: {
        tags,
        operationId: 'putLogo',
        summary: "Upload the organisation's logo: the image's bytes as the body (PNG, JPEG, GIF or WebP, at most 512 KB)",
        description:
          'Content-Type image/*; the type is read from the bytes, and one not listed (SVG included) is 422. Larger: 413. Not an image type: 415.',
        response: { 200: Settings, ...errorResponses(401, 403, 413, 415, 422) },
      },
    },
    async (request) => {
      if (!Buffer.isBuffer(request.body)) throw new UnsupportedMediaTypeError(`Send the image itself, as ${LOGO_TYPES.join(', ')}.`);
      return putLogo(app.ctx, request.body, callerOf(request).id);
    },
  );

  app.delete(
    '/settings/logo',
    {
      onRequest: superUser,
      schema: {
        tags,
        operationId: 'deleteLogo',
        summary: "Remove the organisation's logo",
        response: { 200: Settings, ...errorResponses(401, 403) },
      },
    },
    async (request) => deleteLogo(app.ctx, callerOf(request).id),
  );

  app.get(
    '/logo/:sha256',
    {
      schema: {
        tags,
        operationId: 'getLogo',
        summary: "The organisation's logo (anonymous; public pages and system mail show it), cached for a year",
        params: Type.Object({ sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) }),
        response: { 200: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const logo = await readLogo(app.ctx, request.params.sha256);
      return reply
        .header('content-type', logo.contentType)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('etag', `"${request.params.sha256}"`)
        .send(logo.bytes);
    },
  );
};
