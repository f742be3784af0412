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

/** A JSON value: what JSON.parse gives and JSON.stringify keeps (the emulator's state is made of them). */
export type JsonValue = JsonScalar | JsonValue[] | { [key: string]: JsonValue };

/** A JSON object: a configuration document, a request body, a job's results. */
export type JsonObject = { [key: string]: JsonValue };

/**
 * JSON.parse, typed as what it returns: without a reviver, a JSON text parses to a JSON value
 * and nothing else. Throws SyntaxError as JSON.parse does.
 */
export function parseJson(text: string): JsonValue {
  return JSON.parse(text);
}

/** Whether a value is JSON all the way down (e.g. a form body built of strings, lists and maps). */
export function isJsonValue(value: unknown): value is JsonValue {
  if (isJsonScalar(value)) return true;
  if (Array.isArray(value)) return value.every(isJsonValue);
  return isRecord(value) && Object.values(value).every(isJsonValue);
}

/** Whether a value is a JSON object, its values checked all the way down. */
export function isJsonObject(value: unknown): value is JsonObject {
  return isRecord(value) && Object.values(value).every(isJsonValue);
}
