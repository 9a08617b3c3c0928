import { scenario, type Scenario } from './scenario.js';
import { superUserSession } from './seeds.js';
import { runBare } from './sending.bare.js';
import { runCampaign } from './sending.campaign.js';
import { AUDIENCE, FROM, PAIR_AUDIENCE, sendAudience, type SendFixture } from './sending.seeds.js';
import { withDkimKeys } from './sending.dkim.js';
import { runCampaignWithWebhooks } from './sending.webhooks.js';

/*
 * The sending area's bench scenarios (jobs; see ./scenario.ts), gathered by ./scenarios.ts. Issue 5's figures: the
 * campaign sender's rate from one worker process into an SMTP sink, against nodemailer alone composing every message
 * and nodemailer handed prebuilt raw MIME, both measured in the same run (`ratio_to_…`); the worker's memory at
 * 10,000 and at 100,000 sent; and exactly-once delivery with two workers, and across a kill -9 and a restart.
 * Every mail goes to a sink process of its own (bench/smtp-sink.ts), and every worker is `node dist/worker.js`.
 */

const BARE_COMPOSE = 'send-bare-nodemailer-compose';
const BARE_RAW = 'send-bare-nodemailer-raw';

export const sendingScenarios: readonly Scenario[] = [
  scenario({
    name: BARE_COMPOSE,
    seed: superUserSession,
    rate: 'messages_per_s',
    job: () => runBare('compose'),
  }),
  scenario({
    name: BARE_RAW,
    seed: superUserSession,
    rate: 'messages_per_s',
    job: () => runBare('raw'),
  }),
  scenario<SendFixture>({
    name: 'send-campaign-100k',
    seed: sendAudience,
    rate: 'messages_per_s',
    baselines: [BARE_COMPOSE, BARE_RAW],
    job: (fixture, context) =>
      runCampaign(fixture, context, {
        label: 'one worker',
        listId: fixture.fullListId,
        recipients: AUDIENCE,
        workers: 1,
        rssAt: [Math.min(10_000, AUDIENCE), AUDIENCE],
      }),
  }),
  // Issue 14: the same campaign DKIM-signed (BENCH_DKIM: rsa, the default; ed25519; or both keys).
  // `npm run bench -- send-campaign-100k` runs both, so the two figures come from the same run.
  scenario<SendFixture>({
    name: 'send-campaign-100k-signed',
    seed: sendAudience,
    rate: 'messages_per_s',
    baselines: ['send-campaign-100k'],
    job: (fixture, context) =>
      withDkimKeys(FROM, (env) =>
        runCampaign(fixture, context, { label: 'one worker, DKIM-signed', listId: fixture.fullListId, recipients: AUDIENCE, workers: 1, env }),
      ),
  }),
  // Issue 27: the same campaign with an endpoint wanting the campaign events; the target is within 5 % of the plain
  // send. `npm run bench -- send-campaign-100k` runs both, back to back.
  scenario<SendFixture>({
    name: 'send-campaign-100k-webhooks',
    seed: sendAudience,
    rate: 'messages_per_s',
    baselines: ['send-campaign-100k'],
    job: (fixture, context) =>
      runCampaignWithWebhooks(fixture, context, {
        label: 'one worker, campaign webhooks',
        listId: fixture.fullListId,
        recipients: AUDIENCE,
        workers: 1,
      }),
  }),
  scenario<SendFixture>({
    name: 'send-two-workers',
    seed: sendAudience,
    rate: 'messages_per_s',
    job: (fixture, context) =>
      runCampaign(fixture, context, { label: 'two workers', listId: fixture.pairListId, recipients: PAIR_AUDIENCE, workers: 2 }),
  }),
  scenario<SendFixture>({
    name: 'send-kill9-restart',
    seed: sendAudience,
    job: (fixture, context) =>
      runCampaign(fixture, context, {
        label: 'kill -9',
        listId: fixture.pairListId,
        recipients: PAIR_AUDIENCE,
        workers: 1,
        killAt: 0.3,
        // The rows the killed worker held come back when its lease runs out (SEND_LEASE_SECONDS, default 10 s):
        // `held_rows_settled_s_after_kill` says how long that took.
      }),
  }),
];
