// Copies of records in the hot paths, made the fast way. V8 (Node 20) takes a slow path, about
// 2 µs, to copy an object with a spread when the copy then gets a key the original lacks
// (`{ ...o, extra }`), or when the copy is frozen (`Object.freeze({ ...o })`): the copy's hidden
// class is made anew each time. `Object.assign` onto a fresh object copies the same own enumerable
// keys, in the same order, in about 0.4 µs (BENCHMARKS.md, 2026-11-28). For plain records only: it
// sets the keys where a spread defines them, which differs for a key named `__proto__`.
//
// The same slow path is taken by a literal that *starts* with a conditional spread of an optional
// key (`{ ...(x !== undefined ? { x } : {}), y }`): 1–2 µs against 30–60 ns for the literal with the
// optional key set after it (`const o: Mutable<T> = { y }; if (x !== undefined) o.x = x;`). A
// conditional spread after the first key is as quick as the assignment (BENCHMARKS.md, 2026-11-29).

/** `T` with its keys writable: a record built key by key before it is handed out as `T`. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** `{ ...o, ...changes }`: the same keys, in the same order, the same values. */
export function withChanges<T extends object>(o: T, changes: Partial<T>): T {
  return Object.assign({}, o, changes);
}

/** `Object.freeze({ ...o })`. */
export function frozenCopy<T extends object>(o: T): T {
  return Object.freeze(Object.assign({}, o));
}
