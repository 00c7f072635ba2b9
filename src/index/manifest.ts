import { CorruptIndexError } from '../errors.js';
import { readCodecFile, writeCodecFile } from './store/codec-file.js';
import type { Directory } from './store/directory.js';

export const MANIFEST_FILE = 'manifest';
const MANIFEST_TEMP = 'manifest.tmp';
const CODEC_MANIFEST = 'pushsearch.manifest';
const MANIFEST_VERSION = 1;

export interface ManifestGeneration {
  generation: number;
  docCount: number;
  killedCount: number;
  /** `.del` file with this manifest's killed bits of the generation, or null. */
  killedFile: string | null;
  /** Files of the generation itself (killed file excluded). */
  files: string[];
  sizeBytes: number;
}

/**
 * The list of live generations, published atomically. The file is always called
 * `manifest`, so that restoring a backup by hand (copying a snapshot's files over `live/`)
 * replaces it; `number` still grows by one with every publish.
 */
export interface Manifest {
  number: number;
  generations: ManifestGeneration[];
  nextGeneration: number;
  nextDeleteGeneration: number;
  /** Highest journal sequence number whose change this manifest contains. */
  journalSeq: number;
  lastCommitTime: string | null;
  userData: Record<string, unknown>;
}

export function emptyManifest(): Manifest {
  return {
    number: 0,
    generations: [],
    nextGeneration: 1,
    nextDeleteGeneration: 1,
    journalSeq: 0,
    lastCommitTime: null,
    userData: {},
  };
}

/** Every file the manifest needs, itself included. */
export function manifestFiles(manifest: Manifest): string[] {
  const files = [MANIFEST_FILE];
  for (const generation of manifest.generations) {
    files.push(...generation.files);
    if (generation.killedFile !== null) files.push(generation.killedFile);
  }
  return files;
}

export function readManifest(dir: Directory): Manifest | null {
  if (!dir.fileExists(MANIFEST_FILE)) return null;
  const { body } = readCodecFile(dir, MANIFEST_FILE, CODEC_MANIFEST, MANIFEST_VERSION);
  try {
    return JSON.parse(new TextDecoder().decode(body)) as Manifest;
  } catch (error) {
    throw new CorruptIndexError(MANIFEST_FILE, 'not valid JSON', { cause: error });
  }
}

/**
 * Publishes atomically: temp file, fsync it, rename over `manifest`, fsync the folder. A
 * crash at any point leaves either the old or the new manifest, both complete.
 *
 * `syncFirst` are files the manifest names that are not durable yet (a new generation): they
 * are synced together with the temp file, in one round, and all before the rename.
 */
export async function publishManifest(
  dir: Directory,
  manifest: Manifest,
  syncFirst: readonly string[] = [],
): Promise<void> {
  dir.deleteFile(MANIFEST_TEMP);
  writeCodecFile(
    dir,
    MANIFEST_TEMP,
    CODEC_MANIFEST,
    MANIFEST_VERSION,
    new TextEncoder().encode(JSON.stringify(manifest)),
  );
  await dir.sync([...syncFirst, MANIFEST_TEMP]);
  dir.rename(MANIFEST_TEMP, MANIFEST_FILE);
  try {
    await dir.syncDirectory();
  } catch (error) {
    // The new manifest may or may not survive a crash: its files must not be deleted.
    throw new ManifestMaybePublishedError(error);
  }
}

/** Publishing failed after the rename: the new manifest may be the one found after a crash. */
export class ManifestMaybePublishedError extends Error {
  constructor(cause: unknown) {
    super(`syncing the index folder failed after publishing a manifest: ${(cause as Error).message}`, {
      cause,
    });
    this.name = 'ManifestMaybePublishedError';
  }
}

export function isManifestTemp(name: string): boolean {
  return name === MANIFEST_TEMP;
}
