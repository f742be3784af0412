import type { ProgramFacts } from "./facts";
import type { AnyDefinition, CheckedOf, RecordedOf, StateOf } from "./define";
import type { CheckResponse, DiffResponse, Props, ResourceContext } from "./types";

export type { CheckResponse, DiffResponse };

// One call of a kind's method, typed as pulumi-go-provider's infer types it
// (`CreateRequest[I]{Name, Inputs, Preview}` -> `CreateResponse[O]`): who the call is about (its
// identity) apart from what it is about (inputs and state, typed by the kind's schema). Each front
// door builds the identity once, from what it is told: the provider plugin from the engine's
// request (plugin/resources.ts), the dynamic resources from the provider reference Pulumi keeps
// with each of them (dynamic/runtime.ts). A kind never sees where it came from.

/** Who a call is about. */
export interface CallIdentity {
  /** The resource's name in the program. */
  name: string;
  /** Its URN (absent for a lookup, which is no resource). */
  urn?: string;
  /** The owner marker written onto every object the resource creates (ownership.ts ownerOfUrn of its URN). */
  owner?: string;
  /** The program's directory, which relative paths in inputs are relative to (a Table's data). */
  root?: string;
  /** What the program declares around the resource (facts.ts); empty through the plugin. */
  facts: ProgramFacts;
  /** A read from the id alone, with nothing recorded: `pulumi import` or a lookup. */
  importing: boolean;
  /** The engine previews: nothing may be written. */
  preview: boolean;
}

/** What every request carries besides its data: the call's identity and the client of its provider's settings. */
export interface CallContext extends ResourceContext {
  readonly call: CallIdentity;
}

/** `check` sees the inputs as the engine passes them: a value unknown at preview included. */
export interface CheckRequest extends CallContext {
  olds: Props;
  news: Props;
}
export interface DiffRequest<D extends AnyDefinition> extends CallContext {
  id: string;
  olds: RecordedOf<D>;
  news: Props;
}
export interface CreateRequest<D extends AnyDefinition> extends CallContext {
  inputs: CheckedOf<D>;
}
export interface ReadRequest<D extends AnyDefinition> extends CallContext {
  id: string;
  recorded: RecordedOf<D>;
}
export interface UpdateRequest<D extends AnyDefinition> extends CallContext {
  id: string;
  olds: RecordedOf<D>;
  news: CheckedOf<D>;
}
export interface DeleteRequest<D extends AnyDefinition> extends CallContext {
  id: string;
  recorded: RecordedOf<D>;
}

export interface CreateResponse<D extends AnyDefinition> {
  id: string;
  outs: StateOf<D>;
}
export interface ReadResponse<D extends AnyDefinition> {
  /** Empty: the object is gone. */
  id: string;
  props?: StateOf<D>;
  /** The inputs that would make the object as it is (for refresh and import). */
  inputs?: Partial<CheckedOf<D>>;
}
export interface UpdateResponse<D extends AnyDefinition> {
  outs: StateOf<D>;
}

/** A resource's lifecycle: one request in, one response out, per method. */
export interface Handler<D extends AnyDefinition> {
  check(req: CheckRequest): Promise<CheckResponse>;
  /** Omitted: the diff the schema's markers say (define.ts markerDiff). */
  diff?(req: DiffRequest<D>): Promise<DiffResponse>;
  create(req: CreateRequest<D>): Promise<CreateResponse<D>>;
  read(req: ReadRequest<D>): Promise<ReadResponse<D>>;
  update(req: UpdateRequest<D>): Promise<UpdateResponse<D>>;
  delete(req: DeleteRequest<D>): Promise<void>;
}
