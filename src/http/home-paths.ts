import { realpathSync } from 'node:fs';

/**
 * Turns the absolute paths of files in `$SEARCH_HOME` inside a text (an error message, a
 * collection's failure reason) into paths relative to the home (`data/docs/live/journal`),
 * and the home itself into `$SEARCH_HOME`. Public answers (search, `/ready`) and the push API
 * go through it: where the server's files lie is for administrators (the admin API and the
 * logs keep full paths), not for whoever can reach a public endpoint.
 */
export function homePathHider(root: string): (text: string) => string {
  const roots = new Set([root.replace(/\/+$/, '')]);
  try {
    roots.add(realpathSync(root));
  } catch {
    // The home's real path is the same, or cannot be read: the given one is enough.
  }
  // Longest first: a real path that extends the given one is replaced whole.
  const ordered = [...roots].filter((r) => r !== '').sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const home of ordered) {
      if (!out.includes(home)) continue;
      out = out.split(`${home}/`).join('').split(home).join('$SEARCH_HOME');
    }
    return out;
  };
}
