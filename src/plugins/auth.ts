import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { findSessionByKey, type Privilege } from '../identity/index.js';
import { ForbiddenError } from '../shared/errors.js';

export interface Caller {
  readonly id: number;
  readonly sessionId: number;
  readonly superUser: boolean;
  readonly privileges: Readonly<Record<Privilege, boolean>>;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
  interface FastifyInstance {
    /**
     * An onRequest hook: a valid session is required, and, when `privilege` is given, that privilege
     * (super users have them all). It runs before the body is read, so authentication is checked first.
     */
    requireAuth(privilege?: Privilege, deniedMessage?: string): onRequestHookHandler;
  }
}

export const NO_SESSION = 'No valid session key was provided as basic auth password.';

/** The session key: `php-auth-pw` (phpList's client), the password of Basic auth, or a Bearer token. */
export function sessionKeyOf(request: FastifyRequest): string | null {
  const header = request.headers['php-auth-pw'];
  if (typeof header === 'string' && header) return header;
  const authorization = request.headers.authorization;
  if (!authorization) return null;
  const [scheme, value] = authorization.split(' ', 2);
  if (!value) return null;
  if (scheme?.toLowerCase() === 'bearer') return value.trim();
  if (scheme?.toLowerCase() === 'basic') {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : null;
  }
  return null;
}

export function registerAuth(app: FastifyInstance): void {
  app.decorateRequest('caller', null);

  const authenticate = async (request: FastifyRequest): Promise<Caller> => {
    if (request.caller) return request.caller;
    const key = sessionKeyOf(request);
    if (!key || key.length > 200) throw new ForbiddenError(NO_SESSION);
    const found = await findSessionByKey(app.ctx.db, key);
    if (!found) throw new ForbiddenError(NO_SESSION);
    request.caller = {
      id: found.adminId,
      sessionId: found.sessionId,
      superUser: found.superUser,
      privileges: {
        subscribers: found.privSubscribers,
        campaigns: found.privCampaigns,
        statistics: found.privStatistics,
        settings: found.privSettings,
      },
    };
    return request.caller;
  };

  app.decorate('requireAuth', (privilege?: Privilege, deniedMessage?: string): onRequestHookHandler => {
    return async (request) => {
      const caller = await authenticate(request);
      if (privilege && !caller.superUser && !caller.privileges[privilege]) {
        throw new ForbiddenError(deniedMessage ?? `You are not allowed to access ${privilege}.`);
      }
    };
  });
}

/** The authenticated caller of a route guarded by requireAuth. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new ForbiddenError(NO_SESSION);
  return request.caller;
}
