import { ConfigFileError } from './config-file-error.js';
import { configLines } from './config-lines.js';
import { compileGuardedRegex, type KeyRegex } from './guarded-regex.js';

/**
 * `qie.cfg`: query-independent evidence, a prior score per document chosen by its key
 * (**compat**). One rule a line, `score regex`, separated by the first run of whitespace:
 *
 * - `score`: a decimal from 0 to 1 (`0`, `1`, `0.75`, `.5`, `1.0`); no signs, no exponents.
 * - `regex`: the rest of the line, searched in the canonical key (see `guarded-regex.ts`).
 * - The first line whose regex matches decides the score; a key no line matches gets
 *   {@link QIE_DEFAULT_SCORE}, 0.5, the neutral middle (the original's default too), so
 *   scores below it lower and above it raise a document. How much the score weighs in
 *   ranking is a query processor option, not part of this file.
 * - `#` comments and blank lines are skipped; errors name the file and line.
 */

/** Score of keys that no rule matches. */
export const QIE_DEFAULT_SCORE = 0.5;

/** One line of qie.cfg. */
export interface QieRule {
  readonly score: number;
  /** The score as written, kept for serialisation (default: `String(score)`). */
  readonly scoreText?: string;
  readonly pattern: string;
  readonly regex: KeyRegex;
}

/** A parsed qie.cfg, rules in file order. */
export interface Qie {
  readonly rules: readonly QieRule[];
}

const SCORE = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/** Parses qie.cfg. Throws `ConfigFileError` (`CONFIG_INVALID`) with the line of the first bad line. */
export function parseQie(text: string, fileName = 'qie.cfg'): Qie {
  const rules: QieRule[] = [];
  for (const { line, text: content } of configLines(text)) {
    const [, scoreText, pattern] = /^(\S+)\s+(\S.*)$/s.exec(content) ?? [];
    if (scoreText === undefined || pattern === undefined) {
      throw new ConfigFileError(
        fileName,
        line,
        `expected "score regex", found ${JSON.stringify(content)} (no regex)`,
      );
    }
    const score = SCORE.test(scoreText) ? Number(scoreText) : NaN;
    if (!(score >= 0 && score <= 1)) {
      throw new ConfigFileError(
        fileName,
        line,
        `the score ${JSON.stringify(scoreText)} must be a number from 0 to 1`,
      );
    }
    let regex: KeyRegex;
    try {
      regex = compileGuardedRegex(pattern);
    } catch (e) {
      throw new ConfigFileError(fileName, line, (e as Error).message);
    }
    rules.push({ score, scoreText, pattern, regex });
  }
  return { rules };
}

/** The score of a key: the first matching rule's, else {@link QIE_DEFAULT_SCORE}. */
export function matchQie(qie: Qie, key: string): number {
  for (const rule of qie.rules) {
    if (rule.regex.test(key)) return rule.score;
  }
  return QIE_DEFAULT_SCORE;
}

/** Writes the rules back as qie.cfg. */
export function serializeQie(qie: Qie): string {
  const lines = qie.rules.map((rule) => `${rule.scoreText ?? String(rule.score)} ${rule.pattern}`);
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}
