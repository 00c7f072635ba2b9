/**
 * Types of what the server answers, derived from the same JSON schemas the server validates
 * and serialises with (the route modules of `src/http/push-api/`, `src/http/admin-schemas.ts`) and from the
 * search packet definition the search service builds (`src/search/result-packet.ts`): one
 * source, so the client cannot drift from the server.
 */
import type { FromSchema } from 'json-schema-to-ts';
import type {
  API_TOKEN_BODY,
  API_TOKEN_VIEW,
  COLLECTION_INFO,
  USER_BODY,
  USER_VIEW,
} from '../http/admin-schemas.js';
import type {
  CLICK_LOGS_RESPONSE,
  COMMIT_RESPONSE,
  VACUUM_PROGRESS,
} from '../http/push-api/commit-and-vacuum.js';
import type { DOCUMENT_RESPONSE, STORED_RESPONSE } from '../http/push-api/documents.js';
import type { SNAPSHOT_RESPONSE } from '../http/push-api/snapshots.js';
import type { STATE_RESPONSE, UPGRADE_RESPONSE } from '../http/push-api/state-and-upgrade.js';

export type { FacetView, SearchResponse, SearchResult } from '../search/result-packet.js';
import type { SearchResponse } from '../search/result-packet.js';

export type Metadata = Record<string, string[]>;

/** Answer of add, delete and redirect. */
export type StoredResponse = FromSchema<typeof STORED_RESPONSE>;
/** A document as pushed (`get`). */
export type DocumentResponse = FromSchema<typeof DOCUMENT_RESPONSE>;
/** A document that exists: {@link DocumentResponse} with its content decoded. */
export type PushedDocument = Omit<DocumentResponse, 'pushContent' | 'committed'> & {
  pushContent: NonNullable<DocumentResponse['pushContent']>;
  committed: boolean;
  content: Buffer;
};
export type CommitResponse = FromSchema<typeof COMMIT_RESPONSE>;
export type VacuumProgress = FromSchema<typeof VACUUM_PROGRESS>;
export type VacuumType = VacuumProgress['type'];
export type ClickLogsResponse = FromSchema<typeof CLICK_LOGS_RESPONSE>;
export type Snapshot = FromSchema<typeof SNAPSHOT_RESPONSE>;
export type StateResponse = FromSchema<typeof STATE_RESPONSE>;
export type CollectionState = StateResponse['state'];
export type UpgradeResponse = FromSchema<typeof UPGRADE_RESPONSE>;
export type CollectionInfo = FromSchema<typeof COLLECTION_INFO>;
export type UserView = FromSchema<typeof USER_VIEW>;
export type UserInput = FromSchema<typeof USER_BODY>;
/** An API token as listed (never its secret). */
export type ApiTokenView = FromSchema<typeof API_TOKEN_VIEW>;
/** What creating an API token takes. */
export type ApiTokenInput = FromSchema<typeof API_TOKEN_BODY>;
export type ResultsSummary = SearchResponse['response']['resultPacket']['resultsSummary'];

export interface SearchOptions {
  /** First rank to answer, from 1. */
  startRank?: number;
  /** Results per page (server maximum 1000). */
  numRanks?: number;
  /** Generalised scope ID (`gscope1`). */
  gscope?: string;
  /** Facet selections: `f.<Name>|<class>` (or `f.<Name>`) → values. */
  facets?: Record<string, string[]>;
  /** Any further parameter, passed as it is. */
  params?: Record<string, string | string[]>;
}
