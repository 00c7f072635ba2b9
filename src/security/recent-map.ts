/**
 * Sets `key` as the most recent entry of `map` (a Map iterates in insertion order: deleting
 * first moves the key to the end), then drops the least recent entries beyond `max`. The
 * security maps (failures, trusted addresses, cached credentials) are bounded this way, so
 * that a client cycling through names or passwords cannot grow memory without bound.
 */
export function setMostRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as K);
}
