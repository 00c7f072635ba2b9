/**
 * Collects extracted metadata (name → values in document order). A Map, not an object,
 * because names come from documents: a JSON key `__proto__` must be a plain name, not a
 * prototype change.
 */
export class MetadataCollector {
  private readonly values = new Map<string, string[]>();

  add(name: string, value: string): void {
    const list = this.values.get(name);
    if (list === undefined) this.values.set(name, [value]);
    else list.push(value);
  }

  first(name: string): string | undefined {
    return this.values.get(name)?.[0];
  }

  /** A plain object; `Object.fromEntries` defines own properties, so `__proto__` stays a key. */
  toRecord(): Record<string, string[]> {
    return Object.fromEntries(this.values);
  }
}
