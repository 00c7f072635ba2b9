import { SearchError } from '../errors.js';

/** BM25F parameters of one field. */
export interface FieldScoring {
  /** Multiplies the field's normalised term frequency before saturation (BM25F field boost). */
  weight: number;
  /** Length normalisation, 0 (none) to 1 (full). */
  b: number;
}

/**
 * Ranking parameters of BM25F (see `similarity.ts` for the exact formula).
 * `defaultFields` are the fields an unscoped term searches together.
 */
export interface ScoringOptions {
  /** Term-frequency saturation: higher means repeated terms keep adding score longer. */
  k1: number;
  fields: Record<string, FieldScoring>;
  defaultFields: string[];
}

/** What callers may pass: every part optional, field entries merged over the defaults one by one. */
export interface ScoringOptionsInput {
  k1?: number;
  fields?: Record<string, Partial<FieldScoring>>;
  defaultFields?: string[];
}

/** Parameters of a field that `fields` does not name. */
export const UNKNOWN_FIELD_SCORING: Readonly<FieldScoring> = Object.freeze({ weight: 1, b: 0.75 });

/**
 * The defaults: body text, title (`t`, short and telling: high weight, little length
 * normalisation) and anchor text (`k`, many short repeated strings: little normalisation).
 */
export const DEFAULT_SCORING: Readonly<ScoringOptions> = Object.freeze({
  k1: 1.2,
  fields: Object.freeze({
    body: Object.freeze({ weight: 1, b: 0.75 }),
    t: Object.freeze({ weight: 2.5, b: 0.4 }),
    // Anchor text and click queries are sparse (most documents have none): averaging their
    // length over every document would crush them, so they are not length-normalised.
    k: Object.freeze({ weight: 1.5, b: 0 }),
    K: Object.freeze({ weight: 2, b: 0 }),
  }),
  defaultFields: Object.freeze(['body', 't', 'k']) as string[],
});

function invalid(message: string): never {
  throw new SearchError('SCORING_OPTIONS_INVALID', message);
}

function checkField(name: string, f: FieldScoring): void {
  if (!Number.isFinite(f.weight) || f.weight < 0) {
    invalid(`scoring weight of field "${name}" must be a finite number >= 0, got ${f.weight}`);
  }
  // b outside [0, 1] can make the length normaliser zero or negative: scores would be infinite or negative.
  if (!Number.isFinite(f.b) || f.b < 0 || f.b > 1) {
    invalid(`scoring b of field "${name}" must be between 0 and 1, got ${f.b}`);
  }
}

/**
 * Merges partial options over {@link DEFAULT_SCORING} (each field entry over the default entry
 * of that field) and validates the result. Throws `SCORING_OPTIONS_INVALID`.
 */
export function resolveScoringOptions(input?: ScoringOptionsInput): ScoringOptions {
  const k1 = input?.k1 ?? DEFAULT_SCORING.k1;
  if (!Number.isFinite(k1) || k1 < 0) invalid(`scoring k1 must be a finite number >= 0, got ${k1}`);
  const fields: Record<string, FieldScoring> = {};
  for (const [name, f] of Object.entries(DEFAULT_SCORING.fields)) fields[name] = { weight: f.weight, b: f.b };
  for (const [name, f] of Object.entries(input?.fields ?? {})) {
    const base = fields[name] ?? UNKNOWN_FIELD_SCORING;
    fields[name] = { weight: f.weight ?? base.weight, b: f.b ?? base.b };
  }
  for (const [name, f] of Object.entries(fields)) checkField(name, f);
  const defaultFields = [...(input?.defaultFields ?? DEFAULT_SCORING.defaultFields)];
  if (defaultFields.length === 0) invalid('scoring defaultFields must name at least one field');
  if (new Set(defaultFields).size !== defaultFields.length) {
    invalid(`scoring defaultFields must not repeat a field: ${defaultFields.join(', ')}`);
  }
  return { k1, fields, defaultFields };
}

/** The parameters of `field` (the unknown-field defaults when `options.fields` does not name it). */
export function fieldScoring(options: ScoringOptions, field: string): FieldScoring {
  return Object.hasOwn(options.fields, field) ? options.fields[field] : UNKNOWN_FIELD_SCORING;
}
