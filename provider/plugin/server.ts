// The provider plugin's gRPC server (Pulumi's provider protocol, pulumi/pulumi proto/pulumi/provider.proto,
// through the message classes @pulumi/pulumi publishes). It serves the plugin's identity and
// package schema, its configuration (provider-config.ts) and every kind's resource methods
// (resources.ts). A method it leaves out answers UNIMPLEMENTED (grpc-js does so).
//
// Why not @pulumi/pulumi/provider's server: it ignores Configure's arguments and fails on the
// property-less Read that `pulumi import` sends (still in 3.27x).
import * as fs from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { PluginConfig, configSourceOf } from "./provider-config";
import { CallError } from "./call-error";
import { engineLog } from "./engine-log";
import type { PluginResources } from "./resources";
import type { KindModule } from "../lifecycle/dispatch";
import type { ResourceKind } from "../kinds/registry";

/** The package root: schema.json and package.json, beside dist/ (or provider/, run from the sources). */
const ROOT = path.resolve(__dirname, "..", "..", fs.existsSync(path.join(__dirname, "..", "..", "package.json")) ? "" : "..");

export interface PluginServer {
  port: number;
  /** Stops taking calls and ends the ones under way. */
  stop(): Promise<void>;
}

/** The plugin's version: the package's. */
export function pluginVersion(): string {
  const pkg: unknown = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
  return typeof pkg === "object" && pkg !== null && "version" in pkg && typeof pkg.version === "string" ? pkg.version : "0.0.0";
}

/** The checked-in package schema (scripts/gen-schema.ts writes it; a test fails when it is stale). */
function schemaText(): string {
  return fs.readFileSync(path.join(ROOT, "schema.json"), "utf8");
}

/** A unary method served by an async function; failures reach the engine as gRPC statuses. */
function unary<Req, Res>(fn: (req: Req) => Res | Promise<Res>) {
  return (call: grpc.ServerUnaryCall<Req, Res>, done: grpc.sendUnaryData<Res>): void => {
    Promise.resolve()
      .then(() => fn(call.request))
      .then(
        (res) => done(null, res),
        (err: unknown) => done(err instanceof CallError ? err.failure : { code: grpc.status.UNKNOWN, details: err instanceof Error ? err.message : String(err) }),
      );
  };
}

/**
 * What the plugin tells the engine of itself, in the handshake and again in Configure (the engine
 * takes the first it gets). Secrets are not accepted: the engine sends plain values and marks an
 * answer's property secret where the input was (values.ts). No preview of Create and Update: a
 * preview runs Check and Diff only, as it does for the dynamic resources.
 */
const PROTOCOL = { acceptSecrets: false, acceptResources: false, acceptOutputs: false, supportsPreview: false } as const;

export interface PluginServerOptions {
  /** How a kind's module is loaded (default: the runtime's, from dist/ beside this module). */
  load?: (kind: ResourceKind) => Promise<KindModule>;
  /** The engine's address, for messages to the user (absent: they are kept in `messages`). */
  engine?: string;
  messages?: string[];
}

export async function startPluginServer(options: PluginServerOptions = {}): Promise<PluginServer> {
  const version = pluginVersion();
  const server = new grpc.Server({ "grpc.max_receive_message_length": 1024 * 1024 * 400 });
  const config = new PluginConfig();
  const log = engineLog(options.engine, options.messages);
  // The kinds (and with them the SDK, zod and the HTTP client) load on the first call that needs
  // them: the engine also starts the plugin only to ask for its schema (a YAML program's type
  // check), which then takes a fifth of the time.
  let loaded: Promise<{ resources: PluginResources; invoke: (req: proto.InvokeRequest) => Promise<proto.InvokeResponse> }> | undefined;
  const kinds = () =>
    (loaded ??= (async () => {
      const [{ PluginResources: Resources, clientOf }, { invokeLookup }, { loadKind: load }] = await Promise.all([import("./resources"), import("./invoke"), import("../kinds/registry")]);
      const loadKind = options.load ?? load;
      const context = clientOf(config);
      return { resources: new Resources(context, log, loadKind), invoke: (req: proto.InvokeRequest) => invokeLookup(req, context, loadKind) };
    })());
  const impl: grpc.UntypedServiceImplementation = {
    handshake: unary((_req: proto.ProviderHandshakeRequest) =>
      new proto.ProviderHandshakeResponse().setAcceptSecrets(PROTOCOL.acceptSecrets).setAcceptResources(PROTOCOL.acceptResources).setAcceptOutputs(PROTOCOL.acceptOutputs),
    ),
    getPluginInfo: unary((_req: Empty) => new PluginInfo().setVersion(version)),
    getSchema: unary((req: proto.GetSchemaRequest) => {
      // Version 0 is the only schema version Pulumi defines.
      if (req.getVersion() > 0) throw new CallError({ code: grpc.status.INVALID_ARGUMENT, details: `keboola: schema version ${req.getVersion()} is not supported (0 is)` });
      return new proto.GetSchemaResponse().setSchema(schemaText());
    }),
    checkConfig: unary((req: proto.CheckRequest) => config.checkConfig(req)),
    diffConfig: unary((req: proto.DiffRequest) => config.diffConfig(req)),
    configure: unary((req: proto.ConfigureRequest) => {
      config.configure(configSourceOf(req));
      return new proto.ConfigureResponse()
        .setAcceptsecrets(PROTOCOL.acceptSecrets)
        .setAcceptresources(PROTOCOL.acceptResources)
        .setAcceptoutputs(PROTOCOL.acceptOutputs)
        .setSupportspreview(PROTOCOL.supportsPreview);
    }),
    check: unary(async (req: proto.CheckRequest) => (await kinds()).resources.check(req)),
    diff: unary(async (req: proto.DiffRequest) => (await kinds()).resources.diff(req)),
    create: unary(async (req: proto.CreateRequest) => (await kinds()).resources.create(req)),
    read: unary(async (req: proto.ReadRequest) => (await kinds()).resources.read(req)),
    update: unary(async (req: proto.UpdateRequest) => (await kinds()).resources.update(req)),
    delete: unary(async (req: proto.DeleteRequest) => {
      await (await kinds()).resources.delete(req);
      return new Empty();
    }),
    invoke: unary(async (req: proto.InvokeRequest) => (await kinds()).invoke(req)),
    cancel: unary((_req: Empty) => new Empty()),
  };
  server.addService(ResourceProviderService, impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) =>
        server.tryShutdown(() => {
          log.close();
          resolve();
        }),
      ),
  };
}
