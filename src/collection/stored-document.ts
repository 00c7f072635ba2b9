import type { StoredRecord } from '../index/document.js';
import type { ChangeRecord } from './change-record.js';
import { RECEIVED_TIME_METADATA } from './received-time.js';
import { STORED } from './stored-fields.js';

/**
 * Between a stored record (what the index keeps of a pushed document) and what it was pushed
 * as: the document view of `GET documents`, and the change that re-stages it.
 */

/** A document as pushed, as `GET documents` shows it. */
export interface DocumentView {
  key: string;
  pushContent: {
    content: string;
    contentType: string;
    metadata: Record<string, string[]>;
    receivedTime: string;
  };
  committed: boolean;
  redirect?: string;
}

/** The document as pushed, from its stored record (`committed`: false while only staged). */
export function documentView(key: string, record: StoredRecord, committed: boolean): DocumentView {
  const redirect = record[STORED.redirect];
  const content = record[STORED.content];
  const view: DocumentView = {
    key,
    pushContent: {
      content:
        content instanceof Uint8Array
          ? Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('base64')
          : '',
      contentType: (record[STORED.contentType] as string | undefined) ?? '',
      metadata: JSON.parse((record[STORED.pushMetadata] as string | undefined) ?? '{}') as Record<
        string,
        string[]
      >,
      receivedTime: (record[STORED.receivedTime] as string | undefined) ?? '',
    },
    committed,
  };
  if (typeof redirect === 'string') {
    view.redirect = redirect;
    view.pushContent.metadata = { [RECEIVED_TIME_METADATA]: [view.pushContent.receivedTime] };
  }
  return view;
}

/** Rebuilds the change a stored document came from (RE_INDEX, evidence re-staging). */
export function changeFromStored(key: string, record: StoredRecord): ChangeRecord {
  const redirect = record[STORED.redirect];
  if (typeof redirect === 'string') return { op: 'redirect', key, target: redirect };
  const content = record[STORED.content];
  return {
    op: 'put',
    key,
    content: content instanceof Uint8Array ? content : new Uint8Array(0),
    contentType: (record[STORED.contentType] as string | undefined) ?? '',
    metadata: JSON.parse((record[STORED.pushMetadata] as string | undefined) ?? '{}') as Record<
      string,
      string[]
    >,
    receivedTime: (record[STORED.receivedTime] as string | undefined) ?? '',
    filters: record[STORED.filters] as string | undefined,
    ...(typeof record[STORED.extracted] === 'string'
      ? { extracted: record[STORED.extracted] as string }
      : {}),
  };
}
