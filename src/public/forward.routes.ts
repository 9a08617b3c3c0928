import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { findCampaign } from '../messaging/index.js';
import { received, forward as forwardCampaign, decodeForwardToken } from '../sending/index.js';
import { TooManyRequestsError, UnprocessableError, ValidationError } from '../shared/errors.js';
import { isEmail, findSubscriberByUniqueId } from '../subscription/index.js';
import { forwardDonePage, forwardFormPage, notReceivedPage, type ForwardInput } from './forward.pages.js';
import { readFormBody } from './forms.js';
import { sendPage } from './headers.js';
import { pickLanguage, translator, type Lang } from '../shared/i18n.js';
import { forward } from './messages/forward.js';
import { invalidLinkPage, tooManyRequestsPage } from './preferences.pages.js';
import { limited } from './change-limit.js';
import { FormBody, HtmlPage, TokenParams } from './preferences.schemas.js';

const tags = ['public pages'];
const FORM_TYPE = 'application/x-www-form-urlencoded';
const langOf = (request: FastifyRequest): Lang => pickLanguage(null, request.headers['accept-language']);

/**
 * `GET|POST /forward/{token}`: the `[FORWARDURL]` of campaign mail, a form over the forward-to-a-friend service
 * (sending/forward.service.ts) with its limits: FORWARD_EMAIL_COUNT addresses, the note's length, FORWARD_RATE_LIMIT
 * copies per subscriber a day, plus PREFERENCES_CLIENT_LIMIT posts per client. The page never says which friend got
 * a copy (one may be blacklisted, or already have it): it thanks the forwarder the same way.
 */
export const publicForwardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addContentTypeParser(FORM_TYPE, { parseAs: 'string' }, (_request, body, done) => done(null, String(body)));

  /** The campaign and the subscriber it was sent to, or the page to answer with. */
  async function target(token: string) {
    const decoded = decodeForwardToken(app.ctx.secrets.linkToken, token);
    if (!decoded) return 'invalid' as const;
    const [subscriber, campaign] = await Promise.all([
      findSubscriberByUniqueId(app.ctx.db, decoded.uniqueId),
      findCampaign(app.ctx.db, decoded.campaignId),
    ]);
    if (!subscriber || !campaign || !(await received(app.ctx.db, campaign.id, subscriber.id))) return 'not-received' as const;
    return { subscriber, campaign };
  }

  const limits = () => {
    const { emailCount, personalNoteSize } = app.ctx.config.forward;
    return { friendCount: emailCount, noteMax: personalNoteSize > 0 ? personalNoteSize * 2 : 0 };
  };

  app.get(
    '/forward/:token',
    {
      config: { allowNul: true },
      schema: {
        tags,
        operationId: 'showForwardForm',
        summary: 'Forward a campaign to friends: the form (public HTML page; the signed link is the credential)',
        security: [],
        params: TokenParams,
        response: { 200: HtmlPage('The form'), 404: HtmlPage('Forged link, or a campaign this subscriber was not sent') },
      },
    },
    async (request, reply) => {
      const lang = langOf(request);
      const found = await target(request.params.token);
      if (found === 'invalid') return sendPage(reply, 404, invalidLinkPage(lang));
      if (found === 'not-received') return sendPage(reply, 404, notReceivedPage(lang));
      return sendPage(reply, 200, forwardFormPage({ lang, subject: found.campaign.subject, ...limits() }));
    },
  );

  app.post(
    '/forward/:token',
    {
      config: { allowNul: true, keepBodyKeys: true },
      schema: {
        tags,
        operationId: 'submitForwardForm',
        summary: 'Forward a campaign to friends: send the form (public)',
        description:
          'Fields: `friend` (once per address), `from_name`, `note`. 200 with the same thank-you page whoever got a copy; ' +
          '422 with the form and the messages; 429 when the subscriber or the client is over its limit.',
        security: [],
        params: TokenParams,
        body: { content: { [FORM_TYPE]: { schema: FormBody } } },
        response: {
          200: HtmlPage('Thank you'),
          404: HtmlPage('Forged link, or a campaign this subscriber was not sent'),
          422: HtmlPage('The form again, each message beside its field'),
          429: HtmlPage('Too many forwards: when to try again'),
        },
      },
    },
    async (request, reply) => {
      const lang = langOf(request);
      const found = await target(request.params.token);
      if (found === 'invalid') return sendPage(reply, 404, invalidLinkPage(lang));
      if (found === 'not-received') return sendPage(reply, 404, notReceivedPage(lang));
      if (await limited(request, reply, lang)) return reply;
      const t = translator(forward, lang);
      const form = typeof request.body === 'string' ? readFormBody(request.body) : new Map<string, string[]>();
      const { friendCount, noteMax } = limits();
      const input: ForwardInput = {
        friends: (form.get('friend') ?? []).slice(0, friendCount).map((f) => f.trim().slice(0, 255)),
        fromName: (form.get('from_name')?.[0] ?? '').trim().slice(0, 255),
        note: (form.get('note')?.[0] ?? '').trim(),
      };
      const errors = new Map<string, string>();
      input.friends.forEach((friend, i) => {
        if (friend !== '' && !isEmail(friend)) errors.set(`friend-${i}`, t('errEmail'));
      });
      if (!input.friends.some((f) => f !== '')) errors.set('friend-0', t('errFriends'));
      if (input.fromName === '') errors.set('from-name', t('errRequired'));
      if (noteMax > 0 && input.note.length > noteMax) errors.set('note', t('errNote', { max: noteMax }));
      const page = { lang, subject: found.campaign.subject, friendCount, noteMax, input };
      if (errors.size > 0) return sendPage(reply, 422, forwardFormPage({ ...page, errors }));
      try {
        await forwardCampaign(app.ctx, found.campaign.id, {
          recipients: input.friends.filter((f) => f !== ''),
          uid: found.subscriber.uniqueId,
          note: input.note || null,
          from_name: input.fromName,
          from_email: found.subscriber.email,
        });
      } catch (err) {
        if (err instanceof TooManyRequestsError) {
          const seconds = Number(err.headers['retry-after']);
          return sendPage(reply, 429, tooManyRequestsPage(lang, seconds), { 'retry-after': String(seconds) });
        }
        if (err instanceof UnprocessableError) return sendPage(reply, 404, notReceivedPage(lang));
        if (err instanceof ValidationError)
          return sendPage(reply, 422, forwardFormPage({ ...page, errors: new Map([['friend-0', t('errFriends')]]) }));
        throw err;
      }
      return sendPage(reply, 200, forwardDonePage(lang));
    },
  );
};
