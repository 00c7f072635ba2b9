import type { CollectionConfig } from '../../collection/config/collection-config.js';
import type { SharedGeneration } from '../../index/generation/generation-reader.js';
import type { SchemaOptions } from '../../index/schema.js';
import type { Explanation } from '../../query/explain-query.js';
import type { SearchResponse } from '../result-packet.js';
import type { SearchParams } from '../run-search.js';

/**
 * The messages between the event loop and a search thread. Index bytes travel as
 * `SharedArrayBuffer`s (a handle, never a copy); what a thread has seen once (a generation's
 * shared files, a collection's settings) is sent once and named by id afterwards.
 */

/** The parts of a collection's settings a query reads, as they cross to a thread. */
export interface ThreadSettings {
  /** Unique per parsed settings object: a config change makes a new one. */
  readonly id: number;
  readonly config: CollectionConfig;
  /** `gscopes.cfg` as written back (its compiled patterns cannot cross threads), null when absent. */
  readonly gscopesText: string | null;
  /** The geospatial (type 2) classes of metamap.cfg and xml.cfg: `origin`/`maxdist` read them. */
  readonly geospatialClasses: readonly string[];
}

/** One generation of a member's point in time. */
export interface ThreadGeneration {
  /** {@link SharedGeneration.id}; its files are in the task's `generations` when new to the thread. */
  readonly id: number;
  readonly killedFile: string | null;
  /** Shared memory (see KilledBits); null when nothing is killed. */
  readonly killed: Uint8Array | null;
}

export interface ThreadMember {
  readonly name: string;
  readonly settingsId: number;
  /** The member's point in time: its {@link ThreadPoint}, in the task's `points` when new to the thread. */
  readonly pointId: number;
}

/**
 * The generations of one manifest, as a member searches them: sent to a thread once (with
 * their killed bits as of that manifest) and named by id afterwards, until the thread is
 * told to drop it (`dropPoints`, or a {@link ForgetMessage} of one of its generations).
 */
export interface ThreadPoint {
  readonly id: number;
  readonly generations: readonly ThreadGeneration[];
}

/** The options of a schema queries are analysed with, sent once per thread and named by id. */
export interface ThreadSchema {
  readonly id: number;
  readonly options: SchemaOptions;
}

/** Event loop → thread: run one search. */
export interface SearchTaskMessage {
  readonly type: 'search';
  readonly taskId: number;
  readonly params: SearchParams;
  readonly collection: string;
  readonly isMeta: boolean;
  readonly settingsId: number;
  readonly members: readonly ThreadMember[];
  readonly schemaId: number;
  /** Epoch milliseconds (`performance.timeOrigin + performance.now()`). */
  readonly deadline: number;
  readonly maxPrefixTerms: number;
  /** Explain each result of the page too (the admin UI's query tester); only with `form: 'object'`. */
  readonly explain: boolean;
  /** How the result packet comes back (see {@link AnswerForm}). */
  readonly form: AnswerForm;
  /**
   * Other queries were waiting for a thread when this one was given: the thread gets the
   * next at once, so it does not scavenge between them (see `idle-scavenge.ts`).
   */
  readonly othersWaiting: boolean;
  /**
   * What the thread learns (or drops) before it runs the task; null for most tasks, which
   * only name what the thread holds (a smaller message: cloned, and read, faster).
   */
  readonly learn: ThreadLearning | null;
}

/** What a task brings new to a thread, and what the thread may drop. */
export interface ThreadLearning {
  /** Settings the thread has not seen yet. */
  readonly settings: readonly ThreadSettings[];
  /** Generations the thread has not seen yet. */
  readonly generations: readonly SharedGeneration[];
  /** Points in time the thread has not seen yet. */
  readonly points: readonly ThreadPoint[];
  /** Points in time the thread drops first (it will not be asked for them again). */
  readonly dropPoints: readonly number[];
  /** Schemas the thread has not seen yet. */
  readonly schemas: readonly ThreadSchema[];
  /** The thread drops every schema it holds first (it was sent its limit; see `schemas`). */
  readonly resetSchemas: boolean;
}

/**
 * How a thread answers a result packet: `object` (cloned across: the HTML page and the query
 * tester read it) or `json`, the bytes `/s/search.json` sends (`packet-json.ts`), serialised on
 * the thread and transferred, so the event loop neither deserialises nor serialises the packet.
 */
export type AnswerForm = 'object' | 'json';

/** Event loop → thread: these shared generations closed; drop them and the points in time that read them. */
export interface ForgetMessage {
  readonly type: 'forget';
  readonly ids: readonly number[];
  readonly points: readonly number[];
}

export type ToThreadMessage = SearchTaskMessage | ForgetMessage;

/**
 * Thread → event loop: the answer of a `form: 'json'` task (most queries: `/s/search.json`),
 * as a tuple rather than an object: the event loop reads no property names out of it (a
 * result object's six cost more to read than the bytes' transfer; see search-thread-pool.ts).
 * `timedOut` is the packet's `resultsSummary.timedOut`; `json` the packet's JSON bytes,
 * transferred (their buffer is the thread's no more); `searchMs` and `serializeMs` what the
 * search and its JSON took on the thread (`Server-Timing`).
 */
export type JsonResultMessage = readonly [
  taskId: number,
  timedOut: boolean,
  json: Uint8Array,
  searchMs: number,
  serializeMs: number,
];

/** Thread → event loop. */
export type FromThreadMessage =
  | JsonResultMessage
  | { readonly type: 'ready' }
  | {
      readonly type: 'result';
      readonly taskId: number;
      /** The packet's `resultsSummary.timedOut` (counted by the pool whatever the form). */
      readonly timedOut: boolean;
      /** The packet (`form: 'object'`). */
      readonly response: SearchResponse;
      /** With `explain`: why each result of the page scored what it did; else null. */
      readonly explanations: Explanation[] | null;
      /** What the search took on the thread (`Server-Timing`). */
      readonly searchMs: number;
    }
  | {
      readonly type: 'error';
      readonly taskId: number;
      /** A `SearchError` code, or null for a bug (answered 500, logged). */
      readonly code: string | null;
      readonly message: string;
      readonly stack?: string;
    };

/** What a search thread is started with. */
export interface SearchThreadData {
  /** Signs click-tracking URLs as the service does (`redirect-secret`). */
  readonly secret: Uint8Array;
  readonly name: string;
}
