import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KilledBits } from '../../src/index/generation/killed-bits.js';
import { locationOf } from '../../src/index/key-locations.js';
import { LiveManifest } from '../../src/index/live-manifest.js';
import { emptyManifest, type Manifest } from '../../src/index/manifest.js';
import { MemoryDirectory } from '../../src/index/store/memory-directory.js';
import { manifestEntry, writtenGeneration } from '../support/written-generation.js';

/** A folder with generations 1 (a, b; b killed) and 2 (c), and the manifest that names them. */
function twoGenerations(): { dir: MemoryDirectory; manifest: Manifest } {
  const dir = new MemoryDirectory();
  const first = manifestEntry(writtenGeneration(dir, 1, ['a', 'b']));
  const second = manifestEntry(writtenGeneration(dir, 2, ['c']));
  new KilledBits(2).with([1]).write(dir, 'g1_1.del');
  const manifest: Manifest = {
    ...emptyManifest(),
    number: 3,
    nextGeneration: 3,
    nextDeleteGeneration: 2,
    generations: [{ ...first, killedCount: 1, killedFile: 'g1_1.del' }, second],
  };
  return { dir, manifest };
}

const filesOf = (dir: MemoryDirectory, generation: number) =>
  dir.listAll().filter((name) => name.startsWith(`g${generation}.`) || name.startsWith(`g${generation}_`));

describe('LiveManifest', () => {
  it('loads the manifest read at open: its generations, killed bits and the location of each live key', async () => {
    const { dir, manifest } = twoGenerations();
    const state = new LiveManifest(dir, manifest);
    await state.load();
    assert.deepEqual(
      state.current.generations.map((g) => [g.generation, g.killedCount]),
      [
        [1, 1],
        [2, 0],
      ],
    );
    assert.equal(state.keys.get('a'), locationOf(1, 0));
    assert.equal(state.keys.get('b'), undefined, 'a killed document has no key');
    assert.equal(state.keys.get('c'), locationOf(2, 0));
    assert.equal(state.files.referenceCount('g1_1.del'), 1);
    assert.equal(state.files.referenceCount('g2.doc'), 1);
    state.close();
  });

  it('fails to load a damaged generation, naming its file', async () => {
    const { dir, manifest } = twoGenerations();
    dir.deleteFile('g2.tim');
    await assert.rejects(new LiveManifest(dir, manifest).load(), /g2\.tim/);
  });

  it('deletes the files of a replaced manifest when its last holder lets go, not before', async () => {
    const { dir, manifest } = twoGenerations();
    const state = new LiveManifest(dir, manifest);
    await state.load();
    const held = state.acquire();
    const next: Manifest = { ...manifest, number: 4, generations: manifest.generations.slice(1) };
    state.install(next, new Map());
    assert.equal(state.manifest, next);
    assert.equal(state.current.manifestNumber, 4);
    assert.equal(state.current.generations[0], held.generations[1], 'an unchanged generation is shared');
    assert.ok(filesOf(dir, 1).length > 0, 'a searcher still reads generation 1');
    state.release(held);
    assert.deepEqual(filesOf(dir, 1), []);
    assert.ok(filesOf(dir, 2).length > 0);
    state.close();
  });

  it('gives a generation with new killed bits a new view, while holders keep the one they had', async () => {
    const { dir, manifest } = twoGenerations();
    const state = new LiveManifest(dir, manifest);
    await state.load();
    const held = state.acquire();
    const next: Manifest = { ...manifest, number: 4 };
    const bits = new KilledBits(1).with([0]);
    const file = state.writeKilled(next, 2, bits);
    next.generations = [
      manifest.generations[0]!,
      { ...manifest.generations[1]!, killedCount: 1, killedFile: file },
    ];
    state.install(next, new Map([[2, { bits, file }]]));
    assert.equal(state.liveGeneration(2)?.isKilled(0), true);
    assert.equal(held.generations[1]?.isKilled(0), false, 'a point in time never changes');
    state.release(held);
    assert.ok(dir.fileExists(file));
    state.close();
  });

  it('never hands out a killed-bits file name twice, even after a publish that failed', async () => {
    const { dir, manifest } = twoGenerations();
    const state = new LiveManifest(dir, manifest);
    await state.load();
    const bits = new KilledBits(1).with([0]);
    const before = manifest.nextDeleteGeneration;
    const failed: Manifest = { ...manifest, number: 4 };
    const first = state.writeKilled(failed, 2, bits);
    // The publish of `failed` went wrong (its manifest may still be on disk): the next try builds again.
    const retry: Manifest = { ...state.manifest, number: 4 };
    const second = state.writeKilled(retry, 2, bits);
    assert.notEqual(first, second);
    assert.ok(dir.fileExists(first) && dir.fileExists(second));
    assert.equal(retry.nextDeleteGeneration, before + 2);
    state.close();
  });

  it('opens the readers of generations about to be published, and refuses one that cannot be read', async () => {
    const { dir, manifest } = twoGenerations();
    const state = new LiveManifest(dir, manifest);
    await state.load();
    writtenGeneration(dir, 3, ['d']);
    const release = state.openReaders([3]);
    release();
    writtenGeneration(dir, 4, ['e']);
    dir.deleteFile('g4.fdt');
    assert.throws(() => state.openReaders([3, 4]), /g4\.fdt/);
    state.close();
  });

  it('removes crash leftovers at open and never reuses a generation number seen on disk', async () => {
    const { dir, manifest } = twoGenerations();
    writtenGeneration(dir, 7, ['x']);
    const state = new LiveManifest(dir, manifest);
    await state.load();
    await state.removeLeftovers();
    assert.deepEqual(filesOf(dir, 7), []);
    assert.equal(state.manifest.nextGeneration, 8);
    assert.equal(state.allocateGeneration(), 8);
    assert.equal(state.nextGenerationNumber, 9);
    state.close();
  });

  it('deletes nothing once closed: the folder may belong to a reopened index', async () => {
    const { dir, manifest } = twoGenerations();
    const state = new LiveManifest(dir, manifest);
    await state.load();
    const held = state.acquire();
    state.install({ ...manifest, number: 4, generations: [] }, new Map());
    state.close();
    state.release(held);
    assert.ok(filesOf(dir, 1).length > 0 && filesOf(dir, 2).length > 0);
  });
});
