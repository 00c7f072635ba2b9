import Database from 'better-sqlite3';

/**
 * Why SQLite (better-sqlite3, the FTS5 peer of the benchmarks) cannot be used here, or
 * undefined when it can. It is a devDependency whose native module `npm ci` does not compile
 * (`allowScripts` in package.json: the server does not need it, and compiling it took most of
 * a first install); `npm rebuild better-sqlite3 --dangerously-allow-all-scripts` builds it.
 */
export function sqliteUnavailable(): string | undefined {
  try {
    new Database(':memory:').close();
    return undefined;
  } catch (error) {
    return `better-sqlite3's native module is not built (npm rebuild better-sqlite3 --dangerously-allow-all-scripts builds it): ${(error as Error).message.split('\n')[0]}`;
  }
}
