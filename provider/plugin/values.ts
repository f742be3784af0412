// Property values between the engine's protobuf Structs and the plain records the kinds take.
//
// The plugin tells the engine it does not accept secrets (server.ts): the engine then sends every
// value in plain text and marks an answer's property secret wherever the matching input was
// (pulumi/pulumi sdk/go/common/resource/plugin/provider_plugin.go, annotateSecrets). What the
// engine cannot know, that a kind's output is secret whatever its inputs (a Source's ingestion URL,
// a Sink's token), the plugin marks itself with Pulumi's secret signature, which the engine keeps
// in every answer it reads. Unknown values (preview) arrive as the same sentinel string the
// dynamic provider host passes, which the kinds' checks already know (validation/check.ts UNKNOWN).
import { Struct } from "google-protobuf/google/protobuf/struct_pb";
import type { JavaScriptValue } from "google-protobuf/google/protobuf/struct_pb";
import { isRecord } from "../../keboola/json";
import type { Props } from "../lifecycle/types";

import { SECRET_SIG, SIG_KEY } from "../lifecycle/secret-sig";

/** The plain record a Struct holds (absent: empty). */
export function fromStruct(struct: Struct | undefined): Props {
  const value = struct?.toJavaScript();
  return isRecord(value) ? value : {};
}

/** A value the engine sent marked secret (it does so in Configure's arguments whatever the plugin said), unmarked. */
export function unmarked(value: unknown): unknown {
  return isRecord(value) && value[SIG_KEY] === SECRET_SIG ? value.value : value;
}

/** A record as a Struct, the named top-level properties marked secret. */
export function toStruct(props: Props, secret: readonly string[] = []): Struct {
  const marked = new Set(secret);
  const entries = Object.entries(props)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]): [string, JavaScriptValue] => [k, marked.has(k) ? { [SIG_KEY]: SECRET_SIG, value: json(v) } : json(v)]);
  return Struct.fromJavaScript(Object.fromEntries(entries));
}

/** A value as protobuf's JSON: `undefined` in objects and arrays dropped (a Struct has no such value). */
function json(value: unknown): JavaScriptValue {
  if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value;
  if (Array.isArray(value)) return value.filter((v) => v !== undefined).map(json);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === undefined ? [] : [[k, json(v)]])));
  return null;
}

/** Keys the kinds use for call bookkeeping (`__owner`, ...): never part of what the plugin answers. */
export const isHidden = (key: string): boolean => key.startsWith("__");

/** A record without the hidden bookkeeping keys. */
export function visible(props: Props | undefined): Props {
  return Object.fromEntries(Object.entries(props ?? {}).filter(([k]) => !isHidden(k)));
}
