import { createHash } from 'node:crypto';
import type { Manifest } from '../index/manifest.js';

/** One file of a replicated state: its name in the master's index, length and SHA-256. */
export interface ReplicatedFile {
  name: string;
  size: number;
  /** Lower-case hex. */
  sha256: string;
}

/**
 * What a master answers for `GET /replication/v1/collections/{c}/manifest`: the manifest it
 * serves (as the admin published it) and every file that manifest needs. A query processor
 * that installs it serves exactly this listing to its own query processors, so the id stays
 * the same down a chain.
 */
export interface ReplicationListing {
  /**
   * SHA-256 over the manifest and its files' checksums. Manifest numbers can repeat (a
   * restore on the admin goes back to an older number), ids cannot: two different states
   * never share one, and the same state has the same id on every server.
   */
  id: string;
  manifest: Manifest;
  files: ReplicatedFile[];
  /**
   * When this state was published (ISO 8601), on the clock of the server answering the
   * listing (which sends its `now` beside it): the origin of lag measurements.
   */
  publishedAt: string;
}

/** The id of a listing (see {@link ReplicationListing.id}). */
export function listingId(manifest: Manifest, files: readonly ReplicatedFile[]): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify(manifest));
  for (const file of [...files].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)))
    hash.update(`\n${file.name} ${file.size} ${file.sha256}`);
  return hash.digest('hex');
}

/** Throws when a listing received from a master is not shaped as one (or its id does not match). */
export function checkListing(value: unknown): ReplicationListing {
  const listing = value as ReplicationListing;
  const ok =
    typeof listing === 'object' &&
    listing !== null &&
    typeof listing.id === 'string' &&
    typeof listing.publishedAt === 'string' &&
    typeof listing.manifest === 'object' &&
    listing.manifest !== null &&
    Array.isArray(listing.manifest.generations) &&
    Array.isArray(listing.files) &&
    listing.files.every(
      (f) =>
        typeof f === 'object' &&
        f !== null &&
        typeof f.name === 'string' &&
        /^[A-Za-z0-9._-]{1,128}$/.test(f.name) &&
        Number.isSafeInteger(f.size) &&
        f.size >= 0 &&
        typeof f.sha256 === 'string' &&
        /^[0-9a-f]{64}$/.test(f.sha256),
    );
  if (!ok) throw new Error('the master answered a manifest listing that is not well formed');
  if (listingId(listing.manifest, listing.files) !== listing.id)
    throw new Error(`the master's manifest listing ${listing.id} does not match its own content`);
  const named = new Set(listing.files.map((f) => f.name));
  for (const generation of listing.manifest.generations) {
    for (const name of [
      ...generation.files,
      ...(generation.killedFile === null ? [] : [generation.killedFile]),
    ])
      if (!named.has(name)) throw new Error(`the master's manifest listing lacks the file ${name}`);
  }
  return listing;
}
