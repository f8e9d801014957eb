/**
 * A Map that keeps at most `limit` entries: setting one more forgets the oldest first (a Map keeps insertion order).
 * For in-memory shortcuts whose loss costs only a read (kept parked runs, settled requests, settlements heard).
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    // Set again: it becomes the newest.
    this.delete(key);
    super.set(key, value);
    if (this.size > this.limit) {
      const [oldest] = this.keys();
      this.delete(oldest);
    }
    return this;
  }

  /** The entry, removed: each is used once. */
  take(key: K): V | undefined {
    const value = this.get(key);
    this.delete(key);
    return value;
  }
}
