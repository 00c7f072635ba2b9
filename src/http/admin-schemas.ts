/**
 * JSON schemas of the admin API answers and bodies the client shares with the server
 * (the server validates with them, the client's types are derived from them).
 */
import { PERMISSIONS } from '../security/permissions.js';

export const COLLECTION_INFO = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    type: { type: 'string', enum: ['push', 'meta'] },
    state: { type: 'string', enum: ['STOPPED', 'STARTING', 'RUNNING', 'STOPPING', 'FAILED'] },
    members: { type: 'array', items: { type: 'string' } },
    documents: { type: 'integer' },
    generations: { type: 'integer' },
    stagedChanges: { type: 'integer' },
  },
  required: ['name', 'type', 'state'],
} as const;

export const USER_BODY = {
  type: 'object',
  properties: {
    password: {
      type: 'string',
      minLength: 8,
      maxLength: 1024,
      description: 'Required for a new user; a changed password revokes its tokens.',
    },
    permissions: { type: 'array', items: { type: 'string', enum: [...PERMISSIONS] }, uniqueItems: true },
    collections: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description: 'Collection names, or ["*"] for all.',
    },
  },
  required: ['permissions', 'collections'],
  // A misspelt "password" must be refused, not dropped (the user would keep its old one).
  propertyNames: { enum: ['password', 'permissions', 'collections'] },
} as const;

export const USER_VIEW = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    permissions: { type: 'array', items: { type: 'string' } },
    collections: { type: 'array', items: { type: 'string' } },
    created: { type: 'string', format: 'date-time' },
    updated: { type: 'string', format: 'date-time' },
    activeTokens: { type: 'integer' },
  },
  required: ['name', 'permissions', 'collections', 'created', 'updated', 'activeTokens'],
} as const;

export const API_TOKEN_BODY = {
  type: 'object',
  properties: {
    name: {
      type: 'string',
      minLength: 1,
      maxLength: 64,
      description: "Unique per user: letters, digits, '.', '_', '@', '-'.",
    },
    collections: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description:
        'Collections the token may reach, within the user\'s (["*"] only for a user with every collection). Default: the user\'s.',
    },
    expires: {
      type: 'string',
      format: 'date-time',
      description: 'When it stops working (ISO 8601); absent: never.',
    },
  },
  required: ['name'],
  // A misspelt "expires" must be refused, not dropped (the token would live for ever).
  propertyNames: { enum: ['name', 'collections', 'expires'] },
} as const;

export const API_TOKEN_VIEW = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    user: { type: 'string' },
    collections: { type: 'array', items: { type: 'string' } },
    created: { type: 'string', format: 'date-time' },
    expires: { type: ['string', 'null'], format: 'date-time', description: 'null: never.' },
  },
  required: ['name', 'user', 'collections', 'created', 'expires'],
} as const;
