// Guards that narrow an unknown value (a parsed answer, a configuration document, a user's input)
// to what is read of it, written once for the provider and the emulator, so neither reads JSON
// through type assertions.

/** A JSON scalar: what a `#` key's value is encrypted from, what a list of scalars holds. */
export type JsonScalar = string | number | boolean | null;

export function isJsonScalar(value: unknown): value is JsonScalar {
  return value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/** A non-null object that is not an array (a JSON object), whose keys may then be read. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether `value` is one of `list` (the values of a closed set, e.g. an API enum). */
export function isOneOf<T extends string>(list: readonly T[], value: unknown): value is T {
  return list.some((item) => item === value);
}
