import { createHash } from "node:crypto";
import type { MetadataEntry } from "../api/storage";
import type { Props } from "./types";

// Who created a remote object. Every object the provider creates carries a marker naming its
// owner: the Pulumi URN of the resource (stack, project, type and name). After an ambiguous
// create (lost answer, 5xx, reset), a 409 or a crash, an object found under our id is taken over
// only when it carries this resource's marker; any other object is somebody else's.
//
// Where the marker lives is dictated by the real APIs: Stream's create payload has no
// changeDescription (keboola/keboola-as-code api/stream/design.go: CreateSourceRequest and
// CreateSinkRequest take only id, type, name, description and table), so sources and sinks carry
// it at the end of their `description`. Storage configurations carry it in their metadata (key
// OWNER_KEY, configurations.ts markConfig), written right after the create and on a takeover, and
// in the `changeDescription` of the create itself, so that a configuration our create made is
// recognised even when a crash came between the create and its metadata. Metadata, because a
// `changeDescription` is the last version's: a user's edit replaces it, and an update that
// changes nothing makes no version, so it cannot carry a takeover's marker
// (keboola/storage-api-php-client tests/Common/ComponentsTest.php "Update without change should
// not add version"); metadata stays until deleted and is copied into a new dev branch.

const PREFIX = "managed by keboola-pulumi: ";
const TRAILER = /(?:^|\n\n)managed by keboola-pulumi: (urn:pulumi:\S+)$/;

/** The owner of the resource being operated on: its URN, set by the resource class (`__owner`). */
export function ownerOf(props: Props): string | undefined {
  return typeof props.__owner === "string" && props.__owner.startsWith("urn:pulumi:") ? props.__owner : undefined;
}

/** The type of the resource a URN names (its last type, after any parent types); "" for what is no URN. */
export function resourceTypeOf(urn: string): string {
  const parts = urn.split("::");
  return parts.length >= 4 ? parts[parts.length - 2].split("$").pop()! : "";
}

/**
 * The owner a resource of either front door is known by. The dynamic resources' URN has the type
 * `pulumi-nodejs:dynamic/keboola:<Kind>`, the provider plugin's `keboola:index:<Kind>`: the same
 * resource moved from one door to the other (by an alias, or adopted by import) must recognise its
 * own objects, and a configuration id derived from its owner (derivedConfigId) must stay the same.
 * Markers therefore always name the dynamic form, the one every object made before the plugin
 * carries.
 */
export function ownerOfUrn(urn: string): string {
  const parts = urn.split("::");
  if (parts.length < 4) return urn;
  const types = parts[parts.length - 2].split("$");
  types[types.length - 1] = types[types.length - 1].replace(/^keboola:index:/, "pulumi-nodejs:dynamic/keboola:");
  parts[parts.length - 2] = types.join("$");
  return parts.join("::");
}

/** `text` with the owner's marker appended (unchanged when there is no owner). */
export function withMarker(text: string, owner: string | undefined): string {
  if (!owner) return text;
  return text ? `${text}\n\n${PREFIX}${owner}` : `${PREFIX}${owner}`;
}

/** Splits a marked text into the user's text and the owner it names. */
export function splitMarker(text: string | undefined | null): { text: string; owner?: string } {
  const s = text ?? "";
  const m = TRAILER.exec(s);
  if (!m) return { text: s };
  return { text: s.slice(0, m.index), owner: m[1] };
}

/** Characters the marker adds to a text (for length limits checked at preview). */
export function markerLength(text: string, owner: string | undefined): number {
  return withMarker(text, owner).length - text.length;
}

/** A check failure when a description and the marker appended to it exceed the service's limit. */
export function markedLengthFailure(property: string, text: string, owner: string | undefined, max: number): { property: string; reason: string } | undefined {
  const extra = markerLength(text, owner);
  if (text.length + extra <= max) return undefined;
  return {
    property,
    reason: `is ${text.length} characters; with the owner marker keboola-pulumi appends (${extra} characters) it exceeds the service's ${max}: shorten it to at most ${max - extra}`,
  };
}

/**
 * A configuration id chosen on our side, derived from the owner, so that a create repeated after
 * a crash or a lost answer addresses the same configuration instead of making a second one.
 */
export function derivedConfigId(owner: string): string {
  return `kp-${createHash("sha256").update(owner).digest("hex").slice(0, 20)}`;
}

/** Short form of a URN for messages: `stack/Type::name`. */
export function describeOwner(owner: string | undefined): string {
  if (!owner) return "nobody recorded (not created by keboola-pulumi, or its marker was edited away)";
  const parts = owner.split("::");
  if (parts.length < 4) return owner;
  const stack = parts[0].replace(/^urn:pulumi:/, "");
  const type = resourceTypeOf(owner).replace(/^pulumi-nodejs:dynamic\/keboola:/, "keboola:");
  return `stack "${stack}" of project "${parts[1]}", resource ${type} "${parts[parts.length - 1]}"`;
}

export class OwnershipConflict extends Error {
  override readonly name = "OwnershipConflict";
}

/** The error for an object found under our id that belongs to someone else. */
export function conflict(label: string, where: string, found: string | undefined, mine: string | undefined, fix: string): OwnershipConflict {
  return new OwnershipConflict(
    `${label} already exists ${where} and belongs to ${describeOwner(found)}; this resource is ${describeOwner(mine)}. ` +
      `Nothing was taken over. ${fix}`,
  );
}

// Buckets and tables carry the marker in Storage's metadata API: a provider of our own and one key
// (keboola/keboola-sdk-go pkg/keboola/storage_table_metadata.go: POST .../metadata {provider, metadata}).
export const METADATA_PROVIDER = "keboola-pulumi";
export const OWNER_KEY = "keboola-pulumi.owner";
/** The sha256 of the content last loaded into a table by this provider (keboola-pulumi's own bookkeeping). */
export const CONTENT_KEY = "keboola-pulumi.contentSha256";

/** A metadata value of our provider. */
export function metadataValue(metadata: ReadonlyArray<{ key: string; value: string; provider: string }> | undefined, key: string): string | undefined {
  return metadata?.find((m) => m.provider === METADATA_PROVIDER && m.key === key)?.value;
}

/**
 * A Bucket or Table that create-once found, as it should read it: with the owner it amounts to
 * (`found`: its marker, else the one its kind infers for an unmarked object our own create made)
 * after its own entries, so a marker already on it comes first. `marked`: whether it carries this
 * resource's marker already; otherwise the create writes it, so a takeover moves the marker to the
 * adopter.
 */
export function foundWithOwner<T extends { metadata?: MetadataEntry[] }>(object: T, found: string | undefined, owner: string | undefined): { object: T; marked: boolean } {
  return {
    object: found ? { ...object, metadata: [...(object.metadata ?? []), { id: 0, key: OWNER_KEY, value: found, provider: METADATA_PROVIDER }] } : object,
    marked: owner !== undefined && metadataValue(object.metadata, OWNER_KEY) === owner,
  };
}

/** `urn:pulumi:<stack>::<project>::` of an owner: what every resource of one stack's markers start with. */
export function stackOf(owner: string | undefined): string | undefined {
  const m = owner ? /^urn:pulumi:[^:]+::[^:]+::/.exec(owner) : null;
  return m ? m[0] : undefined;
}

/**
 * Whether `other` is the owner of the same resource (project, type and name) in another stack of
 * the project: its production counterpart, for a stack deployed into a development branch.
 */
export function isCounterpart(other: string | undefined, owner: string | undefined): boolean {
  if (!other || !owner || other === owner || !stackOf(other) || !stackOf(owner)) return false;
  const rest = (urn: string) => urn.split("::").slice(1).join("::");
  return rest(other) === rest(owner);
}

/** A tag of the files a resource uploads, so a create interrupted after its upload recognises its own table. */
export function ownerTag(owner: string): string {
  return `kp-owner-${createHash("sha256").update(owner).digest("hex").slice(0, 24)}`;
}
