/**
 * A Map holding at most `capacity` entries: setting a key makes it the newest, and past capacity
 * the oldest is dropped. For in-memory records keyed by what an attacker chooses (emails,
 * addresses), so that choosing many keys costs old entries, never unbounded memory.
 */
export class RecentMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Stores `value` as the newest entry. */
  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Oldest first. */
  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries.entries();
  }
}
