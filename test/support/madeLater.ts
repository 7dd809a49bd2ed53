/**
 * A value made in a beforeAll, handed out when the test file is collected. Its own module, so that
 * a helper that needs only this does not load the order harness and the SDK's worker with it.
 */

/** Stands for an object a beforeAll makes: using it earlier fails with what it is. */
export function madeLater<T extends object>(get: () => T | undefined, what: string): T {
  const target = (): T => {
    const made = get();
    if (made === undefined) throw new Error(`${what} is used before its beforeAll made it`);
    return made;
  };
  return new Proxy({} as T, {
    get(_proxy, property) {
      const made = target();
      const value: unknown = Reflect.get(made, property, made);
      return typeof value === 'function' ? (value as () => unknown).bind(made) : value;
    },
    set(_proxy, property, value) {
      return Reflect.set(target(), property, value);
    },
  });
}
