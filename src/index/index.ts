/**
 * The index engine as a library: no HTTP, no configuration files. See ARCHITECTURE.md.
 */
export { SearchIndex } from './search-index.js';
export type { IndexOptions, IndexEvent, SnapshotInfo } from './search-index.js';
export type { CommitOptions, CommitResult } from './commit-publisher.js';
export { Searcher } from './searcher.js';
export type { FoundDocument } from './searcher.js';
export type { DocumentInput, StoredRecord, StoredValue } from './document.js';
export { KEY_FIELD } from './document.js';
export type { IndexStats } from './index-stats.js';
export type { SchemaOptions } from './schema.js';
export { Schema } from './schema.js';
export { FsDirectory } from './store/fs-directory.js';
export { MemoryDirectory } from './store/memory-directory.js';
export type { Directory } from './store/directory.js';
export type { GenerationView, PostingsIterator } from './generation-view.js';
export { createAnalyzer } from './analysis/create-analyzer.js';
export type { Analyzer, AnalyzerOptions } from './analysis/analyzer.js';
