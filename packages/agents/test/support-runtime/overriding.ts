/** A transport (or any object) with some members replaced, everything else bound to the original. */
export function overriding<T extends object>(target: T, overrides: Readonly<Record<string | symbol, unknown>>): T {
  return new Proxy(target, {
    get(inner, prop) {
      if (Object.hasOwn(overrides, prop)) return overrides[prop];
      const value = Reflect.get(inner, prop, inner) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(inner) : value;
    },
  });
}
