/** `1 token`, `2 tokens`, `0 tokens`, with thousands separated: counts in messages people read. */
export function plural(count: number, noun: string, pluralNoun = `${noun}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? noun : pluralNoun}`;
}
