import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JobContext, JobFigures } from './scenario.js';
import { runCampaign, withDatabase, type CampaignRun } from './sending.campaign.js';
import type { SendFixture } from './sending.seeds.js';

/*
 * Issue 27: the campaign send with an endpoint wanting the campaign events (status changes, finished with totals),
 * against a receiver in this process answering 204. The endpoint is written straight into the database (the
 * receiver is on loopback, which the API refuses unless the service runs with WEBHOOK_ALLOW_PRIVATE=1); the worker
 * gets WEBHOOK_ALLOW_PRIVATE=1 to deliver to it. `webhook_requests` says the events did reach it.
 */
export async function runCampaignWithWebhooks(fixture: SendFixture, context: JobContext, run: CampaignRun): Promise<JobFigures> {
  const databaseUrl = context.serviceEnv.DATABASE_URL;
  if (!databaseUrl) return { skipped: 'needs PostgreSQL: worker processes cannot share PGlite with the service' };
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.statusCode = 204;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
  const id = await withDatabase(databaseUrl, async (db) => {
    const inserted = await db.query<{ id: number }>(
      `insert into webhook_endpoints (url, events, secret) values ($1, '{campaign.status_changed,campaign.finished}', $2) returning id`,
      [url, secret],
    );
    return inserted.rows[0]!.id;
  });
  try {
    const figures = await runCampaign(fixture, context, { ...run, env: { ...run.env, WEBHOOK_ALLOW_PRIVATE: '1' } });
    // Five events (draft → submitted → prepared → inprocess → sent, and finished); the last ones are posted within
    // the sender's poll after the campaign is sent.
    const until = Date.now() + 10_000;
    while (requests < 5 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    return { ...figures, webhook_requests: requests };
  } finally {
    await withDatabase(databaseUrl, (db) => db.query('delete from webhook_endpoints where id = $1', [id]));
    server.close();
  }
}
