// The plugin's Invoke: the lookups of provider/lookups/lookups.ts by their tokens
// (`keboola:index:getBucket`, ...). Arguments are checked by the lookup's schema (a failure names
// the argument, as a resource's check does); a lookup of a kind's object runs that kind's read
// from the id alone, its secret outputs marked secret.
import * as grpc from "@grpc/grpc-js";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { runMethod, type KindModule } from "../lifecycle/dispatch";
import { isKindLookup, LOOKUPS } from "../lookups/lookups";
import { checkWith } from "../validation/check";
import type { Props, ResourceContext } from "../lifecycle/types";
import type { ResourceKind } from "../kinds/registry";
import type { CallContext } from "../lifecycle/call";
import { fromStruct, toStruct, visible } from "./values";
import { resourceToken } from "./package-schema";
import { CallError } from "./call-error";

export async function invokeLookup(req: proto.InvokeRequest, context: ResourceContext, loadModule: (kind: ResourceKind) => Promise<KindModule>): Promise<proto.InvokeResponse> {
  const token = req.getTok();
  const lookup = LOOKUPS.find((l) => resourceToken(l.name) === token);
  if (!lookup) {
    const known = LOOKUPS.map((l) => resourceToken(l.name)).join(", ");
    throw new CallError({ code: grpc.status.INVALID_ARGUMENT, details: `keboola: unknown function "${token}"; this provider has ${known}` });
  }
  const { value, failures } = checkWith(lookup.args, fromStruct(req.getArgs()));
  if (!value || failures.length > 0) {
    return new proto.InvokeResponse().setFailuresList(failures.map((f) => new proto.CheckFailure().setProperty(f.property).setReason(f.reason)));
  }
  const args: Record<string, unknown> = { ...value };
  // A guarded configuration's lookups, as its resources, ask nothing before the token's project is verified.
  await context.guard?.();
  const ctx: CallContext = { client: () => context.client(), call: { name: lookup.name, facts: {}, importing: true, preview: false } };
  const notFound = () => new CallError({ code: grpc.status.NOT_FOUND, details: `${lookup.name}: nothing found for ${JSON.stringify(args)}` });
  if (!isKindLookup(lookup)) {
    const out = await lookup.run(args, ctx);
    if (!out) throw notFound();
    return new proto.InvokeResponse().setReturn(toStruct(out));
  }
  const at = await lookup.address(args, ctx);
  if (!at) throw notFound();
  const mod = await loadModule(lookup.kind);
  let result;
  try {
    result = await runMethod(mod, "read", ctx, { id: at.id, recorded: at.recorded }, { forEngine: true });
  } catch (err) {
    throw new CallError({ code: grpc.status.UNKNOWN, details: err instanceof Error ? err.message : String(err) });
  }
  if (!result.props) throw notFound();
  const props: Props = Object.fromEntries(Object.entries(result.props));
  return new proto.InvokeResponse().setReturn(toStruct(visible(props), mod.definition.secretState));
}
