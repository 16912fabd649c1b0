// The run reads what a poke is about from the child itself. Reads of one key never overlap (two
// local activities may finish in either order, and an older answer must not land after a newer
// one): a poke during a read asks for one more read after it, however many pokes came.

/** `poke(key)`: runs `read(key)` now, or once more after the read of that key under way. */
export function coalescedPerKey<K>(read: (key: K) => Promise<void>, onError: (key: K, e: unknown) => void): (key: K) => void {
  /** Keys being read → whether a poke came meanwhile. */
  const reading = new Map<K, boolean>();
  return (key) => {
    if (reading.has(key)) return void reading.set(key, true);
    reading.set(key, false);
    void (async () => {
      do {
        reading.set(key, false);
        try {
          await read(key);
        } catch (e) {
          onError(key, e);
        }
      } while (reading.get(key));
      reading.delete(key);
    })();
  };
}
