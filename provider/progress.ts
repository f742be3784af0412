// Messages from the provider process into Pulumi's output, attached to a resource, while an
// operation runs (a long upload's bytes, percent and rate). `pulumi.log.info` needs the engine's
// address, which the dynamic provider host receives as its first argument but does not hand to
// the SDK's log module (@pulumi/pulumi cmd/dynamic-provider/index.js main), so the Engine's Log
// RPC is called here the way that module does, with the resource's URN. Outside a provider
// process (tests) messages go to the optional fallback.

import type * as engineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import type * as enginePb from "@pulumi/pulumi/proto/engine_pb";

// The modules are loaded when first needed (only a provider process talks to the engine), typed by
// the SDK's own declarations; @grpc/grpc-js is the SDK's copy, of which only this is used.
interface Grpc {
  credentials: { createInsecure(): ConstructorParameters<typeof engineGrpc.EngineClient>[1] };
}

let engine: engineGrpc.EngineClient | null | undefined;

function connect(): engineGrpc.EngineClient | null {
  if (engine !== undefined) return engine;
  engine = null;
  const addr = process.argv[2];
  if (!addr || !/^[\w.[\]:-]+:\d+$/.test(addr) || !/dynamic-provider/.test(process.argv[1] ?? "")) return engine;
  try {
    const pulumiDir = require.resolve("@pulumi/pulumi/package.json").replace(/package\.json$/, "");
    const grpc: Grpc = require(require.resolve("@grpc/grpc-js", { paths: [pulumiDir] }));
    const rpc: typeof engineGrpc = require("@pulumi/pulumi/proto/engine_grpc_pb");
    engine = new rpc.EngineClient(addr, grpc.credentials.createInsecure());
  } catch {
    engine = null;
  }
  return engine;
}

/** Fallback for messages when no engine is reachable (tests set it to collect them). */
let fallback: ((msg: string) => void) | undefined;
export function onProgressWithoutEngine(f: ((msg: string) => void) | undefined): void {
  fallback = f;
}

/**
 * An informational message about the resource `urn` in Pulumi's output. `ephemeral`: shown in the
 * resource's status column while it runs and not kept in the final log (progress updates).
 */
export function progressInfo(urn: string | undefined, message: string, ephemeral = false): Promise<void> {
  const client = connect();
  if (!client) {
    fallback?.(message);
    return Promise.resolve();
  }
  const proto: typeof enginePb = require("@pulumi/pulumi/proto/engine_pb");
  const req = new proto.LogRequest();
  req.setSeverity(proto.LogSeverity.INFO);
  req.setMessage(message);
  req.setUrn(urn ?? "");
  req.setEphemeral(ephemeral);
  return new Promise((resolve) => client.log(req, () => resolve()));
}
