import { SearchError } from '../errors.js';
import { clientFrom, CONNECTION_OPTIONS, noMore, printJson, required, serverUrl } from './cli-options.js';
import { EXIT, UsageError } from './exit-codes.js';
import { printTable, type Command } from './remote-commands.js';

/**
 * `pushsearch collection create|list|delete`: through the admin API when a server is given
 * (`--url` or `PUSHSEARCH_URL`), else offline on the installation folder (server stopped).
 */
export const collectionCommand: Command = {
  options: [...CONNECTION_OPTIONS, 'meta', 'home'],
  usage: `Usage: pushsearch collection create NAME [--meta MEMBER,MEMBER...]
       pushsearch collection list
       pushsearch collection delete NAME
With --url (or PUSHSEARCH_URL) through the server's admin API (--user, --password as for
every server command; needs sec.administer); otherwise offline on --home DIR [SEARCH_HOME]
(default ./search-home), with the server stopped (create and delete are refused while it runs).
  --meta A,B    create a meta collection searching push collections A and B
  --json        print the answer as JSON`,
  async run(args) {
    const action = required(args, 1, 'create, list or delete');
    const name = action === 'list' ? undefined : required(args, 2, 'NAME');
    noMore(args, action === 'list' ? 2 : 3);
    if (!['create', 'list', 'delete'].includes(action))
      throw new UsageError(`unknown collection action ${JSON.stringify(action)}: create, list or delete`);
    const members = args.values.meta
      ?.split(',')
      .map((m) => m.trim())
      .filter((m) => m !== '');
    const json = args.values.json === true;

    if (serverUrl(args) !== undefined) {
      const client = await clientFrom(args);
      try {
        if (action === 'list') {
          const collections = await client.listCollections();
          if (json) printJson({ collections });
          else
            printTable(
              ['NAME', 'TYPE', 'STATE', 'DOCUMENTS'],
              collections.map((c) => [c.name, c.type, c.state, String(c.documents ?? '')]),
            );
        } else if (action === 'create') {
          const answer = await client.createCollection(name!, members);
          if (json) printJson(answer);
          else process.stdout.write(`${answer.message}\n`);
        } else {
          const answer = await client.deleteCollection(name!);
          if (json) printJson(answer);
          else process.stdout.write(`${answer.message}\n`);
        }
        return EXIT.OK;
      } finally {
        await client.close();
      }
    }

    const home = args.values.home ?? args.env.SEARCH_HOME ?? './search-home';
    // Loaded on demand, like the server: client commands should not pay for the engine's modules.
    const { CollectionManager } = await import('../collection/collection-manager.js');
    const { silentPushLog } = await import('../collection/push-log.js');
    const { SearchHome } = await import('../collection/search-home.js');
    const { HomeLock } = await import('../collection/home-lock.js');
    const searchHome = new SearchHome(home);
    const manager = new CollectionManager(searchHome, silentPushLog());
    if (action === 'list') {
      const collections = manager.list();
      if (json) printJson({ collections });
      else for (const info of collections) process.stdout.write(`${info.name}\t${info.type}\n`);
      return EXIT.OK;
    }
    // Changing collections under a running server (deleting the folder of one it has open)
    // would break it: offline changes need the server stopped, and its lock says whether it is.
    let lock;
    try {
      lock = await HomeLock.acquire(searchHome.serverLockFile, searchHome.root);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'HOME_IN_USE') throw error;
      const hint = `${action} the collection through it (--url, e.g. --url http://127.0.0.1:8080), or stop it first`;
      throw new SearchError('HOME_IN_USE', `a server is running on ${searchHome.root}: ${hint}`);
    }
    try {
      if (action === 'create') {
        manager.create(name!, members === undefined ? 'push' : 'meta', members ?? []);
        if (json)
          printJson({
            message: `${members === undefined ? 'push' : 'meta'} collection ${name} created`,
            home,
          });
        else
          process.stdout.write(
            `created ${members === undefined ? 'push' : 'meta'} collection ${name} in ${home}\n`,
          );
      } else {
        if (!manager.exists(name!))
          throw new SearchError('COLLECTION_NOT_FOUND', `collection ${name} does not exist in ${home}`);
        await manager.delete(name!);
        if (json) printJson({ message: `collection ${name} deleted` });
        else process.stdout.write(`deleted collection ${name}\n`);
      }
    } finally {
      await lock.release();
    }
    return EXIT.OK;
  },
};
