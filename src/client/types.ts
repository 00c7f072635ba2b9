/**
 * Answers of the server, as the route schemas of `src/http/push-schemas.ts`,
 * `src/http/admin-api.ts` and the search result packet describe them (the server serialises
 * through those schemas, so these are exactly the fields that can arrive).
 */

/** Metadata: name → values. */
export type Metadata = Record<string, string[]>;

/** Answer of add, delete and redirect calls. */
export interface StoredResponse {
  message: string;
  /** The canonical keys changed. */
  storedKeys: string[];
}

/** A document as pushed (`get`). */
export interface DocumentResponse {
  key: string;
  pushContent: {
    /** The content as pushed, base64 (see {@link PushedDocument.content} for the bytes). */
    content: string;
    contentType: string;
    metadata: Metadata;
    receivedTime: string;
  };
  /** false while the version shown is staged. */
  committed: boolean;
  /** The redirect target when the key is a redirect. */
  redirect?: string;
}

/** {@link DocumentResponse} with the content decoded. */
export interface PushedDocument extends DocumentResponse {
  content: Buffer;
}

export interface CommitResponse {
  /** The generation written (null: nothing was staged); absent for wait=false. */
  generation?: number | null;
  manifest?: number;
  changes: number;
  message?: string;
}

export type VacuumType = 'MERGE' | 'RE_INDEX';

export interface VacuumProgress {
  type: VacuumType;
  state: 'RUNNING' | 'DONE' | 'FAILED';
  done: number;
  total: number;
  startedAt: string;
  finishedAt?: string;
  error?: string;
}

export interface ClickLogsResponse {
  message: string;
  clicksProcessed: number;
  documentsUpdated: number;
}

export interface Snapshot {
  name: string;
  manifest: number;
  documents: number;
  created: string;
  bytes: number;
}

export type CollectionState = 'STOPPED' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'FAILED';

export interface StateResponse {
  collection: string;
  state: CollectionState;
  reason?: string;
  file?: string;
  documents?: number;
  stagedChanges?: number;
  generations?: number;
  lastCommitTime?: string | null;
  mergesRunning?: number;
  vacuum?: VacuumProgress;
  stats?: Record<string, unknown>;
}

export interface UpgradeResponse {
  state: 'IN_PROGRESS' | 'PREPARED';
  error?: string;
}

export interface CollectionInfo {
  name: string;
  type: 'push' | 'meta';
  state: CollectionState;
  members?: string[];
  documents?: number;
  generations?: number;
  stagedChanges?: number;
}

export interface UserView {
  name: string;
  permissions: string[];
  collections: string[];
  created: string;
  updated: string;
  activeTokens: number;
}

export interface UserInput {
  /** Required for a new user; a changed password revokes the user's tokens. */
  password?: string;
  permissions: string[];
  /** Collection names, or `["*"]`. */
  collections: string[];
}

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

export interface SearchResult {
  rank: number;
  score: number;
  title: string;
  liveUrl: string;
  displayUrl: string;
  clickTrackingUrl: string;
  summary: string;
  listMetadata: Record<string, string[]>;
  collection: string;
  gscopesSet: string[];
  fileSize: number;
  fileType: string;
  date: string | null;
}

export interface ResultsSummary {
  totalMatching: number;
  fullyMatching: number;
  partiallyMatching: number;
  currStart: number;
  currEnd: number;
  numRanks: number;
  nextStart: number | null;
  prevStart: number | null;
}

export interface SearchResponse {
  question: Record<string, unknown>;
  response: {
    resultPacket: { query: string; resultsSummary: ResultsSummary; results: SearchResult[] };
    facets: { name: string; className: string; values: { label: string; count: number; selected: boolean }[] }[];
  };
}
