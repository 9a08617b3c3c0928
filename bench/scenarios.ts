import type autocannon from 'autocannon';
import { tenThousandAdministrators, type Seed } from './seeds.js';

/**
 * A bench scenario: what to seed and the requests autocannon cycles through. `requests` runs in the driver
 * process with the seed's result, so it may use functions (`setupRequest`) to vary each request.
 * To add a scenario, append one entry to `scenarios` (and a seed to seeds.ts when the existing ones do not fit).
 */
export interface Scenario<T = unknown> {
  readonly name: string;
  readonly seed: Seed<T>;
  requests(fixture: T): autocannon.Request[];
}

/** Keeps the fixture type of each entry checked while the registry holds them all. */
function scenario<T>(definition: Scenario<T>): Scenario {
  return definition as unknown as Scenario;
}

const withSession = (sessionKey: string) => ({ 'php-auth-pw': sessionKey, accept: 'application/json' });

function randomBetween(first: number, last: number): number {
  return first + Math.floor(Math.random() * (last - first + 1));
}

export const scenarios: readonly Scenario[] = [
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
];
