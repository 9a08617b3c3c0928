import { bounceScenarios } from './bounces.scenarios.js';
import { randomBetween, scenario, withSession, type Scenario } from './scenario.js';
import { tenThousandAdministrators } from './seeds.js';
import { segmentScenarios } from './segments.scenarios.js';
import { sendingScenarios } from './sending.scenarios.js';
import { subscriptionIoScenarios } from './subscription-io.scenarios.js';
import { subscriptionScenarios } from './subscription.scenarios.js';
import { subscriberBulkScenarios } from './subscriber-bulk.scenarios.js';
import { trackingScenarios } from './tracking.scenarios.js';

export type { JobContext, JobFigures, JobScenario, LoadScenario, Scenario } from './scenario.js';

/**
 * Every bench scenario. To add one, append it to the array of your area's file (`bench/<area>.scenarios.ts`),
 * built with `scenario()` from `./scenario.js`, and a seed to seeds.ts (or your area's file) when the existing ones
 * do not fit; a new area file gets one spread line below. Names are unique across all files.
 */
const identityScenarios: readonly Scenario[] = [
  scenario({
    name: 'sessions-me',
    seed: tenThousandAdministrators,
    requests: ({ sessionKey }) => [{ method: 'GET', path: '/api/v2/sessions/me', headers: withSession(sessionKey) }],
  }),
  scenario({
    name: 'administrators-by-id',
    seed: tenThousandAdministrators,
    requests: ({ sessionKey, firstId, lastId }) => [
      {
        method: 'GET',
        path: `/api/v2/administrators/${firstId}`,
        headers: withSession(sessionKey),
        // A different administrator on each request, so no single row stays hot.
        setupRequest: (request) => ({ ...request, path: `/api/v2/administrators/${randomBetween(firstId, lastId)}` }),
      },
    ],
  }),
  scenario({
    // Overload on the embedded database (BENCH_CONNECTIONS=200 npm run bench -- --pglite mixed-reads): how many
    // requests are shed with 503 and how many time out, beside the throughput.
    name: 'mixed-reads',
    seed: tenThousandAdministrators,
    requests: ({ sessionKey, firstId, lastId }) => [
      { method: 'GET', path: '/api/v2/sessions/me', headers: withSession(sessionKey) },
      {
        method: 'GET',
        path: `/api/v2/administrators/${firstId}`,
        headers: withSession(sessionKey),
        setupRequest: (request) => ({ ...request, path: `/api/v2/administrators/${randomBetween(firstId, lastId)}` }),
      },
      { method: 'GET', path: '/api/v2/administrators?limit=25', headers: withSession(sessionKey) },
      { method: 'GET', path: '/readyz' },
    ],
  }),
];

export const scenarios: readonly Scenario[] = [
  ...identityScenarios,
  ...subscriptionScenarios,
  ...subscriptionIoScenarios,
  ...subscriberBulkScenarios,
  ...sendingScenarios,
  ...trackingScenarios,
  ...bounceScenarios,
  ...segmentScenarios,
];

const seen = new Set<string>();
for (const { name } of scenarios) {
  if (seen.has(name)) throw new Error(`bench: two scenarios are named ${name}`);
  seen.add(name);
}
