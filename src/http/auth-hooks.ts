import type { FastifyRequest } from 'fastify';
import { SearchError } from '../errors.js';
import { ADMIN_PERMISSION, PUSH_PERMISSION, type Permission } from '../security/permissions.js';
import type { Authenticator, Principal } from '../security/authenticator.js';
import type { PushAuthenticator } from './push-api/push-api.js';
import type { SearchAuthorizer } from './search-routes.js';

const principals = new WeakMap<FastifyRequest, Principal>();

/** Authenticates a request once (later calls reuse the answer) and remembers who it is. */
export async function authenticateRequest(auth: Authenticator, request: FastifyRequest): Promise<Principal> {
  const now = authenticateRequestNow(auth, request);
  if (now !== undefined) return now;
  const who = await auth.authenticate(request);
  principals.set(request, who);
  return who;
}

/**
 * {@link authenticateRequest} without waiting, for the requests that allow it (a token, or
 * authenticated before); undefined when only the asynchronous path can tell (HTTP Basic).
 */
export function authenticateRequestNow(auth: Authenticator, request: FastifyRequest): Principal | undefined {
  const known = principals.get(request);
  if (known !== undefined) return known;
  const who = auth.authenticateToken(request);
  if (who !== undefined) principals.set(request, who);
  return who;
}

/** The principal of a request authenticated before, or undefined. */
export function principalOf(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}

/**
 * The push API's authentication: a user is needed on every route; collection routes need
 * `sec.continuous.rest` and the collection in the user's list; installation-wide routes
 * (upgrade preparation) need `sec.administer`.
 */
export function pushAuthenticator(auth: Authenticator): PushAuthenticator {
  const authorize = (who: Principal, collection: string | undefined): void => {
    if (collection === undefined) auth.authorize(who, ADMIN_PERMISSION);
    else auth.authorize(who, PUSH_PERMISSION, collection);
  };
  // Clients of the push API send a token with every request, many per second: those are
  // answered without a promise; Basic credentials take the asynchronous path.
  return (request, collection) => {
    const who = authenticateRequestNow(auth, request);
    if (who !== undefined) return authorize(who, collection);
    return authenticateRequest(auth, request).then((found) => authorize(found, collection));
  };
}

/** Search of a collection with `search.public=false`: any user with access to the collection. */
export function searchAuthorizer(auth: Authenticator): SearchAuthorizer {
  return async (request, collection) => {
    let who: Principal;
    try {
      who = await authenticateRequest(auth, request);
    } catch (error) {
      if (error instanceof SearchError && error.code === 'UNAUTHENTICATED') {
        throw new SearchError(
          'UNAUTHENTICATED',
          `collection ${collection} is not public (search.public=false): ${error.message}`,
        );
      }
      throw error;
    }
    auth.authorize(who, undefined, collection);
  };
}

/** An `onRequest` hook that needs a user holding `permission` (or only a user when undefined). */
export function requireUser(auth: Authenticator, permission: Permission | undefined) {
  return async (request: FastifyRequest): Promise<void> => {
    const who = await authenticateRequest(auth, request);
    auth.authorize(who, permission);
  };
}
