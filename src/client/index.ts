/**
 * The pushsearch client (`import { PushClient } from 'pushsearch/client'`): push documents,
 * commit, snapshot, administer and search over HTTP. See {@link PushClient}.
 */
export { PushClient, type PushClientOptions, type AddOptions } from './push-client.js';
export { PushApiError } from './push-api-error.js';
export { encodeContent, charsetOf } from './encode-content.js';
export { needsMultipart, MAX_HEADER_METADATA_BYTES, METADATA_HEADER_PREFIX } from './metadata-transport.js';
export type * from './types.js';
