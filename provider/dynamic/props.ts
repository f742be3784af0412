import { programFactsSchema, type ProgramFacts } from "../lifecycle/facts";
import type { CallIdentity } from "../lifecycle/call";
import type { Props } from "../lifecycle/types";
import { isRecord } from "../../keboola/json";

// What the dynamic door reads out of the properties the dynamic provider host hands over, and
// takes away before a kind sees them. The one hidden input of today is `__program`: what the
// program declares around the resource (lifecycle/facts.ts), which a check needs while the objects
// it references may not exist yet. The rest is what state written by earlier versions holds:
// `__resourceName` and `__owner` (the identity, in inputs and outputs), `__root` (a Table's
// program directory) and `__import`. None of them reaches a kind; any other key does, and a key the
// kind's schema does not know is refused there, as a user's typo is.

/** The program facts a check's new inputs carry (a fact this version cannot read is left out). */
export function factsOf(props: Props): ProgramFacts {
  const f = props.__program;
  return isRecord(f) ? programFactsSchema.parse(f) : {};
}

/** The keys the dynamic provider host (`__provider`) and our resource classes (today's and earlier versions') add. */
const HIDDEN = new Set(["__provider", "__program", "__resourceName", "__owner", "__root", "__import"]);

/** The properties without the host's and our hidden keys: what a kind's schema reads. */
export function withoutHidden(props: Props): Props {
  return Object.fromEntries(Object.entries(props).filter(([k]) => !HIDDEN.has(k)));
}

/** The name a URN gives: what follows its type (a name may itself hold `::`). */
export function nameOfUrn(urn: string): string {
  return urn.split("::").slice(3).join("::") || urn;
}

/**
 * The identity state written by an earlier version carries in its properties (its provider
 * reference named only the kind): the name, else the owner's URN, else the resource's id.
 */
export function legacyIdentity(props: Props, id?: string): CallIdentity {
  const owner = typeof props.__owner === "string" && props.__owner.startsWith("urn:pulumi:") ? props.__owner : undefined;
  const name = typeof props.__resourceName === "string" ? props.__resourceName : owner ? nameOfUrn(owner) : (id ?? "(unnamed)");
  return {
    name,
    ...(owner ? { urn: owner, owner } : {}),
    ...(typeof props.__root === "string" ? { root: props.__root } : {}),
    facts: factsOf(props),
    importing: props.__import === true,
    preview: false,
  };
}

/** The hidden properties a legacy check passes on to the inputs it answers (its create and update read them again). */
export function hiddenOf(props: Props): Props {
  return Object.fromEntries(Object.entries(props).filter(([k]) => HIDDEN.has(k) && k !== "__provider"));
}

/** What a legacy answer keeps of the identity, so that its next read or delete finds it again. */
export function legacyIdentityProps(props: Props): Props {
  return Object.fromEntries(Object.entries({ __resourceName: props.__resourceName, __owner: props.__owner }).filter(([, v]) => v !== undefined));
}
