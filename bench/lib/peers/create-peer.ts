/**
 * The peer of a name, created empty. Each library module is imported only when its peer is
 * run, so that a child process holds one library.
 */
import type { BenchPeer, PeerName, PeerOptions } from './peer.js';

/** A new, empty index of the named library. */
export async function createPeer(name: PeerName, options: PeerOptions): Promise<BenchPeer> {
  switch (name) {
    case 'ours':
      return (await import('./ours-peer.js')).OursPeer.create(options);
    case 'fts5':
      return (await import('./fts5-compare-peer.js')).Fts5ComparePeer.create(options);
    case 'minisearch':
      return new (await import('./minisearch-peer.js')).MiniSearchPeer();
    case 'orama':
      return new (await import('./orama-peer.js')).OramaPeer();
    case 'flexsearch':
      return new (await import('./flexsearch-peer.js')).FlexSearchPeer();
  }
}
