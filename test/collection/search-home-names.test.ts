import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isSearchError } from '../../src/errors.js';
import { validateName } from '../../src/collection/search-home.js';

function refusal(kind: 'collection' | 'snapshot', name: string): string | undefined {
  try {
    validateName(kind, name);
    return undefined;
  } catch (error) {
    assert.ok(isSearchError(error), String(error));
    return error.code;
  }
}

describe('validateName (names found valid are remembered)', () => {
  it('refuses the same names however many valid ones were seen before, also once the remembered ones were let go', () => {
    const refused: [kind: 'collection' | 'snapshot', name: string, code: string][] = [
      ['collection', '../etc', 'COLLECTION_NAME_INVALID'],
      ['collection', 'a..b', 'COLLECTION_NAME_INVALID'],
      ['collection', '.hidden', 'COLLECTION_NAME_INVALID'],
      ['collection', 'Global.CFG', 'COLLECTION_NAME_RESERVED'],
      ['collection', 'a'.repeat(129), 'COLLECTION_NAME_INVALID'],
      ['snapshot', 'a/b', 'SNAPSHOT_NAME_INVALID'],
    ];
    for (let round = 0; round < 3; round++) {
      // More valid names than are remembered: the set is emptied and filled again meanwhile.
      for (let n = 0; n < 1500; n++)
        assert.equal(validateName('collection', `docs-${round}-${n}`), `docs-${round}-${n}`);
      assert.equal(validateName('collection', 'client~name'), 'client~name');
      assert.equal(validateName('collection', 'client~name'), 'client~name');
      for (const [kind, name, code] of refused) {
        assert.equal(refusal(kind, name), code, name);
        assert.equal(refusal(kind, name), code, `${name}, asked again`);
      }
    }
  });
});
