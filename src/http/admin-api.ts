import { existsSync, readFileSync, rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { CollectionManager, CollectionType } from '../collection/collection-manager.js';
import {
  COLLECTION_CONFIG_FILES,
  collectionTypeOf,
  readCollectionConfigTexts,
  readGlobalEntries,
  settingsFromTexts,
  type CollectionConfigFile,
} from '../collection/collection-settings.js';
import { ConfigFileError } from '../collection/config/config-file-error.js';
import { SearchError } from '../errors.js';
import type { Authenticator } from '../security/authenticator.js';
import { ADMIN_PERMISSION, ALL_COLLECTIONS, PERMISSIONS } from '../security/permissions.js';
import { writeFileAtomically } from '../security/user-store.js';
import { requireUser } from './auth-hooks.js';
import { COLLECTION_PARAMS, ERROR_RESPONSES, MESSAGE_RESPONSE } from './common-schemas.js';

/** Options of the {@link adminApi} plugin. */
export interface AdminApiOptions {
  manager: CollectionManager;
  auth: Authenticator;
}

type ConfigFileName = CollectionConfigFile;
const CONFIG_FILES = COLLECTION_CONFIG_FILES;

import { API_TOKEN_BODY, API_TOKEN_VIEW, COLLECTION_INFO, USER_BODY, USER_VIEW } from './admin-schemas.js';
import { plural } from '../plural.js';

const COLLECTION_TAGS = ['admin-collections'];
const USER_TAGS = ['admin-users'];

const CREATE_COLLECTION_BODY = {
  type: 'object',
  properties: {
    type: { type: 'string', enum: ['push', 'meta'] },
    members: {
      type: 'array',
      items: { type: 'string' },
      description: 'Push collections searched by a meta collection.',
    },
  },
  required: ['type'],
  propertyNames: { enum: ['type', 'members'] },
} as const;

const CONFIG_TEXTS = {
  type: 'object',
  description:
    'File name → its text; null: the file does not exist (PUT: remove it; collection.cfg cannot be removed).',
  properties: Object.fromEntries(
    CONFIG_FILES.map((file) => [file, { type: ['string', 'null'], maxLength: 1048576 }]),
  ),
  // Not additionalProperties: false, which Fastify's validator answers by dropping the
  // property silently: a misspelt file name must be refused, not ignored.
  propertyNames: { enum: [...CONFIG_FILES] },
} as const;

const CONFIG_BODY = {
  type: 'object',
  properties: { collection: { type: 'string' }, files: CONFIG_TEXTS },
  required: ['files'],
} as const;

/** The answer to a configuration PUT: the files as written, and what was accepted with a warning. */
const CONFIG_WRITTEN = {
  type: 'object',
  properties: {
    collection: { type: 'string' },
    files: CONFIG_TEXTS,
    warnings: {
      type: 'array',
      items: { type: 'string' },
      description:
        'Accepted but probably not meant: unknown keys (with the nearest known key), installation-wide keys in collection.cfg.',
    },
  },
  required: ['collection', 'files', 'warnings'],
} as const;

const USER_PARAMS = {
  type: 'object',
  properties: { name: { type: 'string', description: "User name: letters, digits, '.', '_', '@', '-'." } },
  required: ['name'],
} as const;

type CollectionRoute = { Params: { collection: string } };
type UserRoute = { Params: { name: string } };
type ConfigTexts = Partial<Record<ConfigFileName, string | null>>;

/**
 * The admin API under `/admin-api/v1` (every route needs `sec.administer`): collections
 * (create push or meta, list with state and counts, delete, read and replace the
 * configuration files, each validated by its parser before anything is written) and users
 * (create or replace, list without secrets, delete, revoke tokens).
 */
export async function adminApi(app: FastifyInstance, options: AdminApiOptions): Promise<void> {
  const { manager, auth } = options;
  app.addHook('onRequest', requireUser(auth, ADMIN_PERMISSION));

  // -------------------------------------------------------------------------------------
  // Collections

  app.get(
    '/collections',
    {
      schema: {
        tags: COLLECTION_TAGS,
        summary: 'List collections',
        description:
          'Every collection with its type, state and (push collections) documents, generations and staged changes. Does not start any.',
        response: {
          200: {
            type: 'object',
            properties: { collections: { type: 'array', items: COLLECTION_INFO } },
            required: ['collections'],
          },
          ...ERROR_RESPONSES,
        },
      },
    },
    async () => ({ collections: manager.list() }),
  );

  app.put<CollectionRoute & { Body: { type: CollectionType; members?: string[] } }>(
    '/collections/:collection',
    {
      schema: {
        tags: COLLECTION_TAGS,
        summary: 'Create a collection',
        description:
          'type "push", or "meta" with the push collections it searches. 409 COLLECTION_EXISTS when the name is taken.',
        params: COLLECTION_PARAMS,
        body: CREATE_COLLECTION_BODY,
        response: {
          200: {
            type: 'object',
            properties: { message: { type: 'string' }, collection: COLLECTION_INFO },
            required: ['message', 'collection'],
          },
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request) => {
      const { collection } = request.params;
      const { type, members } = request.body;
      if (type === 'push' && members !== undefined && members.length > 0) {
        throw new SearchError(
          'PARAMETER_INVALID',
          'a push collection has no members: leave "members" out, or use type "meta"',
        );
      }
      if (type === 'meta' && (members === undefined || members.length === 0)) {
        throw new SearchError(
          'PARAMETER_INVALID',
          'a meta collection needs "members": the push collections it searches',
        );
      }
      manager.create(collection, type, members ?? []);
      const info = manager.list().find((c) => c.name === collection);
      return { message: `${type} collection ${collection} created`, collection: info };
    },
  );

  app.get<CollectionRoute>(
    '/collections/:collection',
    {
      schema: {
        tags: COLLECTION_TAGS,
        summary: 'Read a collection',
        description:
          'Its type, state and (push collections) documents, generations and staged changes, as in the list. Does not start it. 404 COLLECTION_NOT_FOUND.',
        params: COLLECTION_PARAMS,
        response: {
          200: { type: 'object', properties: { collection: COLLECTION_INFO }, required: ['collection'] },
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request) => {
      const { collection } = request.params;
      const info = manager.list().find((c) => c.name === collection);
      if (info === undefined)
        throw new SearchError('COLLECTION_NOT_FOUND', `collection ${collection} does not exist`);
      return { collection: info };
    },
  );

  app.delete<CollectionRoute>(
    '/collections/:collection',
    {
      schema: {
        tags: COLLECTION_TAGS,
        summary: 'Delete a collection',
        description: 'Stops it and removes its configuration, index, journal and snapshots.',
        params: COLLECTION_PARAMS,
        response: { 200: MESSAGE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { collection } = request.params;
      if (!manager.exists(collection)) {
        throw new SearchError('COLLECTION_NOT_FOUND', `collection ${collection} does not exist`);
      }
      await manager.delete(collection);
      return { message: `collection ${collection} deleted` };
    },
  );

  app.get<CollectionRoute>(
    '/collections/:collection/config',
    {
      schema: {
        tags: COLLECTION_TAGS,
        summary: 'Read the configuration files',
        description:
          'The text of collection.cfg, metamap.cfg, xml.cfg, gscopes.cfg and qie.cfg (null: absent).',
        params: COLLECTION_PARAMS,
        response: { 200: CONFIG_BODY, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { collection } = request.params;
      requireCollection(manager, collection);
      return { collection, files: readConfigTexts(manager, collection) };
    },
  );

  app.put<CollectionRoute & { Body: { files: ConfigTexts } }>(
    '/collections/:collection/config',
    {
      schema: {
        tags: COLLECTION_TAGS,
        summary: 'Replace configuration files',
        description:
          'Each file given replaces the one on disk (null removes it); files not given stay. Every file, and every known key of collection.cfg, is validated first (with global.cfg, as the collection will read them): a bad line or value answers 400 CONFIG_INVALID naming the file and the line or key, and nothing is written. Unknown keys are accepted and listed in warnings with the nearest known key. Searches use the new files from the next query on; indexing reads collection.cfg when the collection starts (stop it to apply); mapping changes apply to documents indexed afterwards (RE_INDEX vacuum for the others).',
        params: COLLECTION_PARAMS,
        body: CONFIG_BODY,
        response: { 200: CONFIG_WRITTEN, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { collection } = request.params;
      requireCollection(manager, collection);
      manager.guardWrite();
      const changes = request.body.files;
      const { warnings } = validateConfigTexts(manager, collection, changes);
      for (const file of CONFIG_FILES) {
        const text = changes[file];
        if (text === undefined) continue;
        const path = manager.home.collectionConfigFile(collection, file);
        if (text === null) rmSync(path, { force: true });
        else writeFileAtomically(path, text, 0o644);
      }
      // Searches read the cached settings: the next one sees the files just written.
      manager.settings.forget(collection);
      return { collection, files: readConfigTexts(manager, collection), warnings };
    },
  );

  // -------------------------------------------------------------------------------------
  // Users

  app.get(
    '/users',
    {
      schema: {
        tags: USER_TAGS,
        summary: 'List users',
        description: 'Names, permissions, collections and live token counts; never passwords or hashes.',
        response: {
          200: {
            type: 'object',
            properties: { users: { type: 'array', items: USER_VIEW } },
            required: ['users'],
          },
          ...ERROR_RESPONSES,
        },
      },
    },
    async () => ({ users: auth.users.list() }),
  );

  app.put<UserRoute & { Body: { password?: string; permissions: string[]; collections: string[] } }>(
    '/users/:name',
    {
      schema: {
        tags: USER_TAGS,
        summary: 'Create or replace a user',
        description: `permissions: ${PERMISSIONS.join(', ')}. collections: names, or ["${ALL_COLLECTIONS}"]. A new or changed password revokes the user's tokens. 409 LAST_ADMINISTRATOR when this would leave no user with ${ADMIN_PERMISSION}.`,
        params: USER_PARAMS,
        body: USER_BODY,
        response: {
          200: {
            type: 'object',
            properties: {
              message: { type: 'string' },
              created: { type: 'boolean' },
              tokensRevoked: { type: 'integer' },
              user: USER_VIEW,
            },
            required: ['message', 'created', 'tokensRevoked', 'user'],
          },
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request) => {
      const { name } = request.params;
      const result = await auth.users.put(name, request.body);
      const user = auth.users.view(auth.users.require(name));
      return { message: `user ${name} ${result.created ? 'created' : 'replaced'}`, ...result, user };
    },
  );

  app.get<UserRoute>(
    '/users/:name',
    {
      schema: {
        tags: USER_TAGS,
        summary: 'Read a user',
        description:
          'Permissions, collections and live token count; never the password or its hash. 404 USER_NOT_FOUND.',
        params: USER_PARAMS,
        response: {
          200: { type: 'object', properties: { user: USER_VIEW }, required: ['user'] },
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request) => ({ user: auth.users.view(auth.users.require(request.params.name)) }),
  );

  app.delete<UserRoute>(
    '/users/:name',
    {
      schema: {
        tags: USER_TAGS,
        summary: 'Delete a user',
        description: `Its tokens die with it. 409 LAST_ADMINISTRATOR for the last user with ${ADMIN_PERMISSION}.`,
        params: USER_PARAMS,
        response: { 200: MESSAGE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      auth.users.delete(request.params.name);
      return { message: `user ${request.params.name} deleted` };
    },
  );

  app.delete<UserRoute>(
    '/users/:name/tokens',
    {
      schema: {
        tags: USER_TAGS,
        summary: "Revoke a user's tokens",
        description: 'Every login token of the user stops working at once; Basic credentials still work.',
        params: USER_PARAMS,
        response: {
          200: {
            type: 'object',
            properties: { message: { type: 'string' }, revoked: { type: 'integer' } },
            required: ['message', 'revoked'],
          },
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request) => {
      const revoked = auth.users.revokeTokens(request.params.name);
      return { message: `${plural(revoked, 'token')} of ${request.params.name} revoked`, revoked };
    },
  );

  // -------------------------------------------------------------------------------------
  // API tokens: long-lived, named credentials for programs (X-Security-Token)

  app.post<UserRoute & { Body: { name: string; collections?: string[]; expires?: string } }>(
    '/users/:name/api-tokens',
    {
      schema: {
        tags: USER_TAGS,
        summary: 'Create an API token',
        description:
          'A named token for a program acting as this user: sent as X-Security-Token like a login token, valid until it expires (never when "expires" is absent) or is revoked, reaching only its collections (within the user\'s). The token is in this answer only: it is stored as a hash. 409 API_TOKEN_EXISTS when the user has a token of that name.',
        params: USER_PARAMS,
        body: API_TOKEN_BODY,
        response: {
          200: {
            type: 'object',
            properties: {
              message: { type: 'string' },
              token: { type: 'string', description: 'The secret, shown once.' },
              apiToken: API_TOKEN_VIEW,
            },
            required: ['message', 'token', 'apiToken'],
          },
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request) => {
      const { name } = request.params;
      const { expires } = request.body;
      const created = auth.users.createApiToken(name, {
        name: request.body.name,
        ...(request.body.collections === undefined ? {} : { collections: request.body.collections }),
        ...(expires === undefined ? {} : { expires: Date.parse(expires) }),
      });
      return {
        message: `API token ${request.body.name} of ${name} created: keep it now, it is not shown again`,
        ...created,
      };
    },
  );

  app.get<UserRoute>(
    '/users/:name/api-tokens',
    {
      schema: {
        tags: USER_TAGS,
        summary: "List a user's API tokens",
        description: 'Names, scopes, creation and expiry; never the tokens.',
        params: USER_PARAMS,
        response: {
          200: {
            type: 'object',
            properties: { apiTokens: { type: 'array', items: API_TOKEN_VIEW } },
            required: ['apiTokens'],
          },
          ...ERROR_RESPONSES,
        },
      },
    },
    async (request) => ({ apiTokens: auth.users.listApiTokens(request.params.name) }),
  );

  app.delete<{ Params: { name: string; token: string } }>(
    '/users/:name/api-tokens/:token',
    {
      schema: {
        tags: USER_TAGS,
        summary: 'Revoke an API token',
        description: 'It stops working at once. 404 API_TOKEN_NOT_FOUND.',
        params: {
          type: 'object',
          properties: {
            name: USER_PARAMS.properties.name,
            token: { type: 'string', description: "The API token's name." },
          },
          required: ['name', 'token'],
        },
        response: { 200: MESSAGE_RESPONSE, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { name, token } = request.params;
      auth.users.revokeApiToken(name, token);
      return { message: `API token ${token} of ${name} revoked` };
    },
  );
}

function requireCollection(manager: CollectionManager, collection: string): void {
  if (!manager.exists(collection))
    throw new SearchError('COLLECTION_NOT_FOUND', `collection ${collection} does not exist`);
}

function readConfigTexts(
  manager: CollectionManager,
  collection: string,
): Record<ConfigFileName, string | null> {
  const out = {} as Record<ConfigFileName, string | null>;
  for (const file of CONFIG_FILES) {
    const path = manager.home.collectionConfigFile(collection, file);
    out[file] = existsSync(path) ? readFileSync(path, 'utf8') : null;
  }
  return out;
}

/**
 * Validates the files as the collection would load them once written (the given texts over
 * the files on disk, with global.cfg): throws `CONFIG_INVALID` naming the file and the line
 * or key; returns the warnings of what is accepted.
 */
function validateConfigTexts(
  manager: CollectionManager,
  collection: string,
  changes: ConfigTexts,
): { warnings: readonly string[] } {
  const cfg = changes['collection.cfg'];
  if (cfg === null) {
    throw new ConfigFileError(
      `conf/${collection}/collection.cfg`,
      undefined,
      'collection.cfg cannot be removed: every collection needs one',
    );
  }
  const texts = readCollectionConfigTexts(manager.home, collection);
  for (const file of CONFIG_FILES) {
    const text = changes[file];
    if (text === null) delete texts[file];
    else if (text !== undefined) texts[file] = text;
  }
  const settings = settingsFromTexts(collection, texts, readGlobalEntries(manager.home));
  let type: string | undefined;
  try {
    type = manager.typeOf(collection);
  } catch {
    type = undefined; // collection.cfg on disk does not parse: the new text is what fixes it
  }
  const newType = collectionTypeOf(settings);
  if (type !== undefined && newType !== type) {
    throw new ConfigFileError(
      `conf/${collection}/collection.cfg`,
      undefined,
      `collection_type cannot change from ${type} to ${newType}: create a new collection instead`,
    );
  }
  return { warnings: settings.config.warnings };
}
