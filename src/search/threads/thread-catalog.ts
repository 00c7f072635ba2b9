import type { CollectionSettings } from '../../collection/collection-settings.js';
import { parseGscopes } from '../../collection/config/gscopes.js';
import { GenerationReader, type SharedGeneration } from '../../index/generation/generation-reader.js';
import { KilledBits } from '../../index/generation/killed-bits.js';
import { LiveGeneration } from '../../index/generation/live-generation.js';
import { Schema, type SchemaOptions } from '../../index/schema.js';
import type { SearchMember, SearchView } from '../run-search.js';
import type {
  SearchTaskMessage,
  ThreadGeneration,
  ThreadLearning,
  ThreadSettings,
} from './search-messages.js';

/** Distinct schemas kept resolved per thread (one per analysis in use). */
const SCHEMA_CACHE_ENTRIES = 64;

/**
 * What a search thread keeps between queries: readers of the generations it was shown (over
 * the shared memory of the event loop's readers), settings, points in time (a member's
 * generations as of one manifest) and resolved schemas by id, as the event loop tells it to
 * keep and drop them (see SearchThreadPool). It turns
 * a {@link SearchTaskMessage} into the {@link SearchView} `runSearch` reads, the same view
 * the event loop would have built, over the same manifest.
 */
export class ThreadCatalog {
  private readonly readers = new Map<number, { reader: GenerationReader; live: LiveGeneration | null }>();
  private readonly settings = new Map<number, CollectionSettings>();
  /** Resolved schemas by their options, shared by every id naming the same analysis. */
  private readonly schemas = new Map<string, Schema>();
  private readonly schemasById = new Map<number, Schema>();
  private readonly points = new Map<number, SearchMember['searcher']>();

  /** Learns what the task brings new (and drops what it says), then builds its view. */
  viewOf(task: SearchTaskMessage): SearchView {
    if (task.learn !== null) this.learn(task.learn);
    const members: SearchMember[] = task.members.map((member) => ({
      name: member.name,
      settings: this.settingsOf(member.settingsId),
      searcher: this.pointOf(member.pointId),
    }));
    return {
      collection: task.collection,
      isMeta: task.isMeta,
      settings: this.settingsOf(task.settingsId),
      members,
      schema: this.schemaOf(task.schemaId),
    };
  }

  /** Takes in what a task teaches, drops first what it says to drop. */
  private learn(learn: ThreadLearning): void {
    for (const id of learn.dropPoints) this.points.delete(id);
    for (const shared of learn.generations) this.addGeneration(shared);
    for (const settings of learn.settings) this.addSettings(settings);
    if (learn.resetSchemas) this.schemasById.clear();
    for (const schema of learn.schemas) this.schemasById.set(schema.id, this.schemaFor(schema.options));
    for (const point of learn.points) this.points.set(point.id, this.pointSearcher(point.generations));
  }

  /** Closes the readers of generations the event loop closed, and drops the points in time that read them. */
  forget(ids: readonly number[], points: readonly number[]): void {
    for (const id of points) this.points.delete(id);
    for (const id of ids) {
      this.readers.get(id)?.reader.close();
      this.readers.delete(id);
    }
  }

  /** What a member searches at one point in time: its generations, with the killed bits of then. */
  private pointSearcher(refs: readonly ThreadGeneration[]): SearchMember['searcher'] {
    const generations = refs.map((g) => this.liveGeneration(g));
    return {
      generations,
      stored: (generationIndex, docId, fields, maxChars) => {
        const generation = generations[generationIndex];
        if (generation === undefined) throw new RangeError(`no generation at index ${generationIndex}`);
        return generation.reader.stored(docId, fields, maxChars);
      },
    };
  }

  private pointOf(id: number): SearchMember['searcher'] {
    const searcher = this.points.get(id);
    if (searcher === undefined) throw new Error(`search thread: point in time ${id} was never sent to it`);
    return searcher;
  }

  private schemaOf(id: number): Schema {
    const schema = this.schemasById.get(id);
    if (schema === undefined) throw new Error(`search thread: schema ${id} was never sent to it`);
    return schema;
  }

  /** Generations with an open reader in this thread (tests). */
  get openGenerations(): number[] {
    return [...this.readers.keys()];
  }

  private addGeneration(shared: SharedGeneration): void {
    if (this.readers.has(shared.id)) return;
    this.readers.set(shared.id, { reader: GenerationReader.openShared(shared), live: null });
  }

  private liveGeneration(ref: ThreadGeneration): LiveGeneration {
    const entry = this.readers.get(ref.id);
    if (entry === undefined) throw new Error(`search thread: generation ${ref.id} was never shared with it`);
    // One LiveGeneration per killed file, kept while the manifests use it (its bits are counted once).
    if (entry.live === null || entry.live.killedFileName !== ref.killedFile) {
      const killed = ref.killed === null ? null : new KilledBits(entry.reader.maxDoc, ref.killed);
      entry.live = new LiveGeneration(entry.reader, killed, ref.killedFile);
    }
    return entry.live;
  }

  private addSettings(settings: ThreadSettings): void {
    if (this.settings.has(settings.id)) return;
    this.settings.set(settings.id, {
      config: settings.config,
      gscopes: settings.gscopesText === null ? undefined : parseGscopes(settings.gscopesText),
      // The indexing side's mappings stay on the event loop; queries read only which classes
      // are geospatial (origin, maxdist, kmFromOrigin).
      metamap: {
        classes: new Map(
          settings.geospatialClasses.map((className) => [className, { className, type: 2, sources: [] }]),
        ),
      },
      xml: undefined,
      qie: undefined,
    });
  }

  private settingsOf(id: number): CollectionSettings {
    const settings = this.settings.get(id);
    if (settings === undefined) throw new Error(`search thread: settings ${id} were never sent to it`);
    return settings;
  }

  private schemaFor(options: SchemaOptions): Schema {
    const key = JSON.stringify(options);
    let schema = this.schemas.get(key);
    if (schema === undefined) {
      if (this.schemas.size >= SCHEMA_CACHE_ENTRIES) this.schemas.clear();
      schema = new Schema(options);
      this.schemas.set(key, schema);
    }
    return schema;
  }
}
