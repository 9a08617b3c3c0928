import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

/** Types of the API, all generated from docs/openapi.json (see `npm run api:types`). */
export type Schemas = components['schemas'];

const KEY = 'mailroom.session';
const ID = 'mailroom.session-id';

/** The session key lives in sessionStorage: it ends with the tab, and is sent as `php-auth-pw`. */
export const session = {
  key: (): string | null => sessionStorage.getItem(KEY) || null,
  id: (): number | null => Number(sessionStorage.getItem(ID)) || null,
  set: (key: string, id: number) => {
    sessionStorage.setItem(KEY, key);
    sessionStorage.setItem(ID, String(id));
  },
  clear: () => {
    sessionStorage.removeItem(KEY);
    sessionStorage.removeItem(ID);
  },
};

/** An API answer that is not a success, with the message the API gave. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** Seconds to wait, from `Retry-After` (429). */
    readonly retryAfter: number | null = null,
    /** Field errors of a 422 (`errors.<field>`). */
    readonly fields: Record<string, string[]> = {},
  ) {
    super(message);
  }
}

type Listener = () => void;
const expiryListeners = new Set<Listener>();
/** Called when the API says a signed-in request's session is no more: it expired or was ended elsewhere. */
export function onSessionExpired(listener: Listener): () => void {
  expiryListeners.add(listener);
  return () => expiryListeners.delete(listener);
}

/**
 * phpList's API answers a missing, unknown or expired session key with 403 and this message (not 401), so that is
 * how the console tells an ended session from a privilege it lacks.
 */
const NO_SESSION = 'No valid session key was provided as basic auth password.';

async function sessionEnded(response: Response): Promise<boolean> {
  if (response.status === 401) return true;
  if (response.status !== 403) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { message?: unknown } | null;
  return body?.message === NO_SESSION;
}

const auth: Middleware = {
  onRequest({ request }) {
    const key = session.key();
    if (key) request.headers.set('php-auth-pw', key);
    return request;
  },
  async onResponse({ request, response }) {
    if (request.headers.has('php-auth-pw') && (await sessionEnded(response))) {
      session.clear();
      for (const listener of expiryListeners) listener();
    }
    return response;
  },
};

export const api = createClient<paths>({ baseUrl: '' });
api.use(auth);

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer, or an ApiError carrying the API's message. */
export async function unwrap<T>(pending: Promise<Result<T>>): Promise<T> {
  let result: Result<T>;
  try {
    result = await pending;
  } catch {
    throw new ApiError(0, 'The service cannot be reached. Check your connection and try again.');
  }
  const { data, error, response } = result;
  if (response.ok) return data as T;
  const body = (error ?? {}) as { message?: unknown; errors?: unknown };
  const fields = typeof body.errors === 'object' && body.errors !== null ? (body.errors as Record<string, string[]>) : {};
  let message = typeof body.message === 'string' ? body.message : `The service answered ${response.status}.`;
  const firstField = Object.entries(fields)[0];
  if (response.status === 422 && firstField) message = `${firstField[0]}: ${firstField[1].join(' ')}`;
  const retry = Number(response.headers.get('retry-after'));
  return Promise.reject(new ApiError(response.status, message, Number.isFinite(retry) && retry > 0 ? retry : null, fields));
}

/** Authenticated GET of a non-JSON resource (CSV export), as a Blob. */
export async function fetchBlob(url: string): Promise<Blob> {
  const key = session.key();
  const response = await fetch(url, { headers: key ? { 'php-auth-pw': key } : {} });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { message?: string };
    throw new ApiError(response.status, body.message ?? `The service answered ${response.status}.`);
  }
  return response.blob();
}

/** Authenticated POST of a JSON body answered by a non-JSON resource (the CSV of a selection), as a Blob. */
export async function postBlob(url: string, body: unknown): Promise<Blob> {
  const key = session.key();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { 'php-auth-pw': key } : {}) },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const answer = (await response.json().catch(() => ({}))) as { message?: string; errors?: Record<string, string[]> };
    const field = Object.entries(answer.errors ?? {})[0];
    throw new ApiError(
      response.status,
      field ? `${field[0]}: ${field[1].join(' ')}` : (answer.message ?? `The service answered ${response.status}.`),
    );
  }
  return response.blob();
}
