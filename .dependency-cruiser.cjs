// The layering of src/ (ARCHITECTURE.md), checked by `npm run check`: every import points
// down this list, so a back-edge fails the build.
//
//   cli, client                     the command line and the client library (top)
//   http                            routes, admin UI
//   search, security                the query processor's service side; users and permissions
//   collection                      collections at run time (evidence included)
//   replication, query, journal     copying states; query trees to top k; the journal
//   index                           the engine
//   src/*.ts                        errors, the error code table, small helpers (bottom)
//
// A folder's rule lists what it must not import: the folders above it, and the ones beside
// it that it has no business with.

/** `^src/(a|b)/` for the folders named. */
const folders = (...names) => `^src/(${names.join('|')})/`;

/** A rule that forbids imports from the files of `from` into the folders of `to`. */
const forbid = (name, comment, from, to) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: to },
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    forbid(
      'root-imports-no-folder',
      'src/*.ts (errors, the error code table) sit below every folder.',
      '^src/[^/]+\\.ts$',
      '^src/[^/]+/',
    ),
    forbid(
      'index-is-the-bottom',
      'The engine knows no collection, HTTP, query processor or configuration file.',
      folders('index'),
      folders('cli', 'client', 'http', 'search', 'security', 'collection', 'replication', 'query', 'journal'),
    ),
    forbid(
      'journal-stands-alone',
      'The journal is a log of bytes: it knows nothing of what it stores.',
      folders('journal'),
      folders('cli', 'client', 'http', 'search', 'security', 'collection', 'replication', 'query', 'index'),
    ),
    forbid(
      'query-above-index-only',
      'Query trees run over the engine only.',
      folders('query'),
      folders('cli', 'client', 'http', 'search', 'security', 'collection', 'replication', 'journal'),
    ),
    forbid(
      'replication-above-index-only',
      'Replication copies index states; the collection wires it in, not the other way round.',
      folders('replication'),
      folders('cli', 'client', 'http', 'search', 'security', 'collection', 'query', 'journal'),
    ),
    forbid(
      'collection-below-search',
      'A collection knows nothing of HTTP, users or the query service that reads it.',
      folders('collection'),
      folders('cli', 'client', 'http', 'search', 'security'),
    ),
    forbid(
      'security-below-http',
      'Users and permissions are checked by the HTTP layer, not the other way round.',
      folders('security'),
      folders('cli', 'client', 'http', 'search', 'replication', 'query', 'journal', 'index'),
    ),
    forbid(
      'search-below-http',
      'The query processor is called by routes and threads, never calls them.',
      folders('search'),
      folders('cli', 'client', 'http', 'security'),
    ),
    forbid(
      'http-below-cli',
      'The server does not know its command line or the client.',
      folders('http'),
      folders('cli', 'client'),
    ),
    forbid(
      'client-below-cli',
      'The client library does not know the command line.',
      folders('client'),
      folders('cli'),
    ),
    forbid(
      'src-not-into-tests',
      'The product does not import its tests or benchmarks.',
      '^src/',
      '^(test|bench|scripts)/',
    ),
    {
      name: 'no-circular',
      comment: 'Modules that import each other cannot be understood or tested one at a time.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve is a typo or a missing dependency.',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type that points up is a back-edge too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
