/**
 * A collection's role (admin or query processor, push.run) on its own: decided from
 * collection.cfg and data/{c}/mode.json, refusals with the error that says what to do.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CollectionRole } from '../../src/collection/collection-role.js';
import type { SearchError } from '../../src/errors.js';
import { temporaryHome } from './runtime-fixture.js';

describe('CollectionRole', () => {
  const { home, manager, remove } = temporaryHome();
  after(remove);
  let count = 0;

  /** A new collection with `cfg` lines in its collection.cfg, and its role. */
  function roleWith(cfg: string[]): { name: string; role: CollectionRole; modeFile: string } {
    const name = `r${++count}`;
    manager.create(name, 'push');
    if (cfg.length > 0) appendFileSync(home.collectionConfigFile(name), cfg.join('\n') + '\n');
    try {
      manager.settings.reload(name);
    } catch {
      // A collection.cfg that does not parse: what the role makes of it is the test.
    }
    return {
      name,
      role: new CollectionRole(name, home, manager.settings),
      modeFile: join(home.collectionDataFolder(name), 'mode.json'),
    };
  }

  const code = (expected: string, message?: RegExp) => (error: SearchError) => {
    assert.equal(error.code, expected);
    if (message !== undefined) assert.match(error.message, message);
    return true;
  };

  it('before the first start push.initial-mode decides; the first start records it in mode.json', () => {
    const { role, modeFile } = roleWith(['push.initial-mode=SLAVE']);
    assert.equal(role.mode(), 'SLAVE');
    assert.equal(existsSync(modeFile), false, 'asking writes nothing');
    assert.deepEqual(role.modeAtStart(), { mode: 'SLAVE', sync: true });
    assert.deepEqual(JSON.parse(readFileSync(modeFile, 'utf8')), { mode: 'SLAVE', sync: true });
  });

  it('a collection that ran before mode.json existed stays an admin whatever push.initial-mode says', () => {
    const { name, role } = roleWith(['push.initial-mode=SLAVE']);
    mkdirSync(home.journalFolder(name), { recursive: true });
    assert.equal(role.mode(), 'DEFAULT');
    assert.deepEqual(role.modeAtStart(), { mode: 'DEFAULT', sync: true });
  });

  it('a recorded mode holds over collection.cfg, with whether the sync was stopped', () => {
    const { name, role, modeFile } = roleWith([]);
    role.record({ mode: 'SLAVE', sync: false });
    assert.equal(role.mode(), 'SLAVE');
    assert.deepEqual(role.modeAtStart(), { mode: 'SLAVE', sync: false });
    assert.deepEqual(JSON.parse(readFileSync(modeFile, 'utf8')), { mode: 'SLAVE', sync: false });
    // A new role object (a restarted server) reads the same.
    const again = new CollectionRole(name, home, manager.settings);
    assert.equal(again.mode(), 'SLAVE');
  });

  it('a damaged mode.json fails the start with CONFIG_INVALID naming the file relative to the home', () => {
    const { name, role, modeFile } = roleWith([]);
    mkdirSync(join(modeFile, '..'), { recursive: true });
    writeFileSync(modeFile, '{"mode": "MASTER"}');
    assert.throws(
      () => role.modeAtStart(),
      code('CONFIG_INVALID', new RegExp(`^data/${name}/mode\\.json is damaged`)),
    );
  });

  it('a query processor refuses changes with COLLECTION_READ_ONLY naming its master', () => {
    const { name, role } = roleWith([
      'push.initial-mode=SLAVE',
      'push.replication.master-url=http://admin.example:8080',
    ]);
    assert.throws(
      () => role.refuseChanges('documents'),
      code(
        'COLLECTION_READ_ONLY',
        new RegExp(
          `collection ${name} is a query processor .* takes no documents: send it to its master at http://admin.example:8080`,
        ),
      ),
    );
    role.requireSlave();
  });

  it('a query processor without push.replication.master-url cannot start its sync: WRONG_STATE names the line to add', () => {
    const { name, role } = roleWith(['push.initial-mode=SLAVE']);
    assert.throws(
      () => role.requireMaster(),
      code(
        'WRONG_STATE',
        new RegExp(
          `^collection ${name} has no master: set push.replication.master-url in conf/${name}/collection.cfg$`,
        ),
      ),
    );
    roleWith([
      'push.initial-mode=SLAVE',
      'push.replication.master-url=http://admin.example:8080',
    ]).role.requireMaster();
  });

  it('an admin refuses the sync calls with WRONG_STATE and takes changes', () => {
    const { role } = roleWith([]);
    role.refuseChanges('documents');
    assert.throws(() => role.requireSlave(), code('WRONG_STATE', /POST \.\.\.\/mode\?mode=SLAVE first/));
  });

  it('push.run=false refuses changes with COLLECTION_DISABLED saying which line to change', () => {
    const { name, role } = roleWith(['push.run=false']);
    assert.equal(role.runs(), false);
    assert.throws(
      () => role.refuseChanges('documents'),
      code('COLLECTION_DISABLED', new RegExp(`push\\.run=false in conf/${name}/collection\\.cfg`)),
    );
    assert.deepEqual(role.view(), {
      mode: 'DEFAULT',
      reason: `push.run=false in conf/${name}/collection.cfg`,
    });
  });

  it('reads push.run and the master again once collection.cfg is reloaded, not before', () => {
    const { name, role } = roleWith(['push.run=false']);
    assert.equal(role.runs(), false);
    assert.equal(role.runs(), false);
    writeFileSync(
      home.collectionConfigFile(name),
      'push.replication.master-url=http://admin.example:8080/\n',
    );
    assert.equal(role.runs(), false, 'the loaded configuration holds until it is reloaded');
    manager.settings.reload(name);
    assert.equal(role.runs(), true);
    assert.equal(role.settings().masterUrl, 'http://admin.example:8080');
    writeFileSync(home.collectionConfigFile(name), 'push.run=false\n');
    manager.settings.reload(name);
    assert.equal(role.runs(), false);
    assert.equal(role.settings().masterUrl, undefined);
  });

  it('an admin switching to SLAVE refuses changes while the switch runs, and takes them again if it fails', async () => {
    const { role } = roleWith([]);
    await assert.rejects(
      role.switching('SLAVE', () => {
        assert.throws(() => role.refuseChanges('documents'), code('COLLECTION_READ_ONLY'));
        return Promise.reject(new Error('the commit before the switch failed'));
      }),
      /commit before the switch failed/,
    );
    role.refuseChanges('documents');
  });

  it('a collection.cfg that does not parse counts as an admin that runs until the start reports it', () => {
    const { role } = roleWith(['push.initial-mode=MASTER']);
    assert.equal(role.mode(), 'DEFAULT');
    assert.equal(role.runs(), true);
    assert.deepEqual(role.view(), { mode: 'DEFAULT' });
    assert.throws(() => role.modeAtStart(), code('COLLECTION_CONFIG_BROKEN', /push\.initial-mode/));
  });

  it('the sync state of a collection that does not sync says why', () => {
    const admin = roleWith([]).role.syncState(undefined);
    assert.equal(admin.state, 'STOPPED');
    assert.equal(admin.mode, 'DEFAULT');
    assert.match(admin.reason ?? '', /mode DEFAULT: it is a master/);

    const { name, role } = roleWith([
      'push.initial-mode=SLAVE',
      'push.run=false',
      'push.replication.master-url=http://m.example',
    ]);
    const disabled = role.syncState(undefined);
    assert.equal(disabled.mode, 'SLAVE');
    assert.equal(disabled.master, 'http://m.example');
    assert.equal(disabled.reason, `push.run=false in conf/${name}/collection.cfg`);

    const stopped = roleWith(['push.initial-mode=SLAVE']).role.syncState(undefined);
    assert.equal(stopped.reason, 'the collection is not running');
    assert.equal(stopped.master, null);
  });
});
