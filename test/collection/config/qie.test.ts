import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchQie, parseQie, QIE_DEFAULT_SCORE, serializeQie } from '../../../src/collection/config/qie.js';
import { throwsAtLine } from './helpers.js';

describe('parseQie / matchQie', () => {
  const qie = parseQie(
    '# scores\n0.9 ^https://www\\.example\\.com/products/\n0.1 /archive/\n1 /products/\n.25 \\.pdf$\n',
  );

  it('lets the first matching line win', () => {
    assert.equal(matchQie(qie, 'https://www.example.com/products/archive/x'), 0.9);
    assert.equal(matchQie(qie, 'https://other.com/archive/products/'), 0.1);
    assert.equal(matchQie(qie, 'https://other.com/products/x'), 1);
    assert.equal(matchQie(qie, 'https://other.com/a.pdf'), 0.25);
  });

  it('gives 0.5 to keys no line matches', () => {
    assert.equal(QIE_DEFAULT_SCORE, 0.5);
    assert.equal(matchQie(qie, 'https://other.com/'), 0.5);
    assert.equal(matchQie(parseQie(''), 'local:x'), 0.5);
  });

  it('round-trips through serializeQie, keeping the scores as written', () => {
    const text = serializeQie(qie);
    assert.match(text, /^\.25 /m);
    assert.deepEqual(
      parseQie(text).rules.map((r) => [r.score, r.pattern]),
      qie.rules.map((r) => [r.score, r.pattern]),
    );
  });

  it('accepts scores from 0 to 1 only', () => {
    assert.equal(parseQie('0 x\n1.0 y\n0.000 z').rules.length, 3);
    for (const bad of ['1.5', '-0.1', '+0.5', '5e-1', 'high', '0,5', '.']) {
      throwsAtLine(() => parseQie(`0.5 ok\n${bad} x\n`), 'qie.cfg', 2, /from 0 to 1/);
    }
  });

  it('reports bad lines with their line number', () => {
    throwsAtLine(() => parseQie('0.5 ok\n\n0.7\n'), 'qie.cfg', 3, /no regex/);
    throwsAtLine(() => parseQie('0.5 [z-a]\n'), 'qie.cfg', 1, /invalid regular expression/);
    throwsAtLine(() => parseQie('0.5 ok\n0.5 a{900}b{900}\n'), 'qie.cfg', 2, /instructions/);
  });
});
