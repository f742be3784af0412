import { markerDiff, type AnyDefinition } from "./define";
import type { CallContext, CheckResponse, DiffResponse, Handler } from "./call";
import { PartialFailure, type Method, type Props } from "./types";
import { userFacingError } from "./errors";
import { failuresForEngine, parseChecked } from "../validation/check";

// Runs one method of a kind for either front door: the inputs parsed by the kind's schema (create,
// update), the recorded state parsed by it (diff, read, update, delete), the answer without
// `undefined` (the doors hand it to protobuf Structs, which have no such value), and a failure
// made presentable (named by the resource and the operation, with the fix). What a door adds of
// its own (the dynamic provider's `__provider`, the plugin's secret marks) it adds to the answer.

/** What a kind's module exports (provider/kinds/<kind>/kind.ts). */
export interface KindModule {
  definition: AnyDefinition;
  handler: Handler<AnyDefinition>;
}

/** A method's data as a door receives it: plain records, before the kind's schema has read them. */
export interface RawRequests {
  check: { olds: Props; news: Props };
  diff: { id: string; olds: Props; news: Props };
  create: { inputs: Props };
  read: { id: string; recorded: Props };
  update: { id: string; olds: Props; news: Props };
  delete: { id: string; recorded: Props };
}

/** What each method answers a door: records the door turns into its own wire format. */
export interface Responses {
  check: CheckResponse;
  diff: DiffResponse;
  create: { id: string; outs: Props };
  read: { id: string; props?: Props; inputs?: Props };
  update: { outs: Props };
  delete: void;
}

export interface RunOptions {
  /** Check failures at nested paths as the engine prints them (failuresForEngine); tests read them as they are. */
  forEngine?: boolean;
}

type Runner<M extends Method> = (mod: KindModule, ctx: CallContext, raw: RawRequests[M], options: RunOptions, label: string) => Promise<Responses[M]>;

const METHODS: { [M in Method]: Runner<M> } = {
  async check({ handler }, ctx, { olds, news }, { forEngine }) {
    const r = await handler.check({ ...ctx, olds, news });
    const failures = r.failures && forEngine ? failuresForEngine(r.failures) : r.failures;
    return { ...(r.inputs !== undefined ? { inputs: withoutUndefinedProps(r.inputs) } : {}), ...(failures ? { failures } : {}) };
  },
  async diff({ definition: def, handler }, ctx, { id, olds, news }) {
    const recorded = def.parseState(olds);
    return handler.diff ? handler.diff({ ...ctx, id, olds: recorded, news }) : markerDiff(def, recorded, news, ctx.call.facts);
  },
  async create({ definition: def, handler }, ctx, { inputs }, _options, label) {
    const r = await handler.create({ ...ctx, inputs: parseChecked(def.inputs, inputs, label) });
    return { id: r.id, outs: withoutUndefinedProps(r.outs) };
  },
  async read({ definition: def, handler }, ctx, { id, recorded }) {
    const r = await handler.read({ ...ctx, id, recorded: def.parseState(recorded) });
    if (!r.props) return { id: r.id };
    return { id: r.id, props: withoutUndefinedProps(r.props), ...(r.inputs ? { inputs: withoutUndefinedProps(r.inputs) } : {}) };
  },
  async update({ definition: def, handler }, ctx, { id, olds, news }, _options, label) {
    const r = await handler.update({ ...ctx, id, olds: def.parseState(olds), news: parseChecked(def.inputs, news, label) });
    return { outs: withoutUndefinedProps(r.outs) };
  },
  async delete({ definition: def, handler }, ctx, { id, recorded }) {
    await handler.delete({ ...ctx, id, recorded: def.parseState(recorded) });
  },
};

/**
 * Runs `method` of a kind. A failure comes out as a ProviderError (its message names the resource
 * and says what to do), or as a PartialFailure with that message when the object exists but did not
 * reach the declared state (the door keeps it in state, so nothing is orphaned).
 */
export async function runMethod<M extends Method>(mod: KindModule, method: M, ctx: CallContext, raw: RawRequests[M], options: RunOptions = {}): Promise<Responses[M]> {
  const label = `${mod.definition.type} "${ctx.call.name}"`;
  // Narrowed by M: TypeScript cannot relate the indexed runner to the indexed request.
  const run: Runner<M> = METHODS[method];
  try {
    await ctx.guard?.();
    return await run(mod, ctx, raw, options, label);
  } catch (err) {
    const failed = userFacingError(mod.definition.type, method, ctx.call.name, err);
    if (err instanceof PartialFailure) throw new PartialFailure(failed.message, err.id, withoutUndefinedProps(err.properties), err.reasons);
    throw failed;
  }
}

/** Protobuf Structs reject `undefined`: absent means absent. */
export function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) return withoutUndefinedProps(Object.fromEntries(Object.entries(value)));
  return value;
}

export function withoutUndefinedProps(value: object): Props {
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, withoutUndefined(v)]),
  );
}
