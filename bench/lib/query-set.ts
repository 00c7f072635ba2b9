/**
 * The queries of the RFC benchmarks, as data, in a neutral form that each engine (ours, the
 * FTS5 peer) turns into its own syntax. Terms are lower-case words as both tokenizers produce
 * them (no stemming, no stop-word removal), so every engine looks up the same terms.
 *
 * Classes, chosen for what they stress:
 * - `single-common`: one very frequent word (long posting lists: "the" is on nearly every page).
 * - `single`: one mid-frequency technical word (hundreds to a few thousand pages).
 * - `and`: 2-3 words that must all occur (intersection).
 * - `or`: 2-3 alternatives (union).
 * - `phrase`: words at consecutive positions (positions read and checked).
 */

/** The kind of a benchmark query. */
export type QueryClass = 'single-common' | 'single' | 'and' | 'or' | 'phrase';

/** One benchmark query: its class and its terms in order. */
export interface BenchQuery {
  class: QueryClass;
  terms: string[];
}

/** Every class, in the order benchmarks report them. */
export const QUERY_CLASSES: readonly QueryClass[] = ['single-common', 'single', 'and', 'or', 'phrase'];

const words = (queryClass: QueryClass, list: readonly string[]): BenchQuery[] =>
  list.map((text) => ({ class: queryClass, terms: text.split(' ') }));

/** The benchmark queries, grouped by class in {@link QUERY_CLASSES} order. */
export const QUERY_SET: readonly BenchQuery[] = [
  ...words('single-common', ['the', 'protocol', 'network', 'data', 'address']),
  ...words('single', [
    'congestion',
    'multicast',
    'kerberos',
    'checksum',
    'fragmentation',
    'telnet',
    'ipv6',
    'dnssec',
    'retransmission',
    'mime',
  ]),
  ...words('and', [
    'congestion window',
    'tls handshake certificate',
    'dns resolver cache',
    'tcp retransmission timeout',
    'mail header field',
    'routing table',
    'authentication key exchange',
    'packet loss rate',
    'http proxy',
    'multicast group membership',
  ]),
  ...words('or', [
    'ipv4 ipv6',
    'smtp imap pop3',
    'telnet ftp',
    'rsa dsa ecdsa',
    'udp sctp',
    'ospf bgp',
    'kerberos radius diameter',
    'unicast multicast anycast',
    'json xml',
    'gzip deflate',
  ]),
  ...words('phrase', [
    'transmission control protocol',
    'security considerations',
    'message body',
    'domain name system',
    'user datagram protocol',
    'public key',
    'congestion control',
    'round trip time',
    'simple mail transfer protocol',
    'access control list',
  ]),
];

/** The queries of one class. */
export function queriesOfClass(queryClass: QueryClass): BenchQuery[] {
  return QUERY_SET.filter((q) => q.class === queryClass);
}

/** A short human-readable form for tables: `congestion AND window`, `"message body"`. */
export function queryLabel(query: BenchQuery): string {
  switch (query.class) {
    case 'and':
      return query.terms.join(' AND ');
    case 'or':
      return query.terms.join(' OR ');
    case 'phrase':
      return `"${query.terms.join(' ')}"`;
    case 'single':
    case 'single-common':
      return query.terms.join(' ');
  }
}

/**
 * A query of the mixed set in both engines' languages: ours as a user types it (the query
 * language of `/s/search.json`), and the nearest FTS5 MATCH expression. Plain words are
 * ours "all words first, then fewer" (tiers over any word), which FTS5 cannot say: its
 * expression is the AND, a subset of our matches.
 */
export interface MixedQuery {
  class: QueryClass | 'prefix' | 'exclusion' | 'required' | 'class' | 'misspelled';
  text: string;
  fts5: string;
}

/** The query language form of a query of {@link QUERY_SET}: words, `[a b]` (any of), `"a b"`. */
export function queryText(query: BenchQuery): string {
  switch (query.class) {
    case 'or':
      return `[${query.terms.join(' ')}]`;
    case 'phrase':
      return `"${query.terms.join(' ')}"`;
    default:
      return query.terms.join(' ');
  }
}

/**
 * The project's mixed query set (the soak benchmark's, and the serving benchmark's): every
 * query of {@link QUERY_SET} as a user types it, then the operators: truncation, exclusion,
 * a required word, a class (`t:` is the title), and a query typed wrong (spelling).
 */
export const MIXED_QUERIES: readonly MixedQuery[] = [
  ...QUERY_SET.map((query): MixedQuery => ({
    class: query.class,
    text: queryText(query),
    fts5:
      query.class === 'phrase'
        ? `"${query.terms.join(' ')}"`
        : query.terms.map((term) => `"${term}"`).join(query.class === 'or' ? ' OR ' : ' AND '),
  })),
  { class: 'prefix', text: 'retrans*', fts5: 'retrans*' },
  { class: 'exclusion', text: 'tcp -udp', fts5: '"tcp" NOT "udp"' },
  { class: 'required', text: '+routing protocol', fts5: '"routing" AND "protocol"' },
  { class: 'class', text: 't:protocol', fts5: 'title : "protocol"' },
  { class: 'prefix', text: 'congest* control', fts5: 'congest* OR "control"' },
  // Typed wrong: nothing matches, so "did you mean" looks for corrections.
  { class: 'misspelled', text: 'retransmision timout', fts5: '"retransmision" AND "timout"' },
];
