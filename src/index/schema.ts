import type { Analyzer, AnalyzerOptions } from './analysis/analyzer.js';
import { createAnalyzer } from './analysis/create-analyzer.js';
import { isKeywordField } from './document.js';

/** How fields are analysed. Index and query side must use the same schema. */
export interface SchemaOptions {
  /** Analyzer of fields without an entry of their own. */
  defaultAnalyzer?: AnalyzerOptions;
  fields?: Record<string, { analyzer?: AnalyzerOptions; positions?: boolean }>;
}

export const DEFAULT_ANALYZER: AnalyzerOptions = {
  caseFold: true,
  foldDiacritics: true,
  stem: true,
  stopWords: false,
};

/** Resolved schema: analyzers are created once and shared. */
export class Schema {
  readonly options: SchemaOptions;
  private readonly analyzers = new Map<string, Analyzer>();
  private readonly defaultAnalyzer: Analyzer;

  constructor(options: SchemaOptions = {}) {
    this.options = options;
    this.defaultAnalyzer = createAnalyzer({ ...DEFAULT_ANALYZER, ...options.defaultAnalyzer });
  }

  analyzerFor(field: string): Analyzer {
    let analyzer = this.analyzers.get(field);
    if (analyzer === undefined) {
      const own = this.options.fields?.[field]?.analyzer;
      analyzer = own === undefined ? this.defaultAnalyzer : createAnalyzer({ ...DEFAULT_ANALYZER, ...own });
      this.analyzers.set(field, analyzer);
    }
    return analyzer;
  }

  /** Keyword fields never keep positions; text fields do unless switched off. */
  hasPositions(field: string): boolean {
    if (isKeywordField(field)) return false;
    return this.options.fields?.[field]?.positions ?? true;
  }
}
