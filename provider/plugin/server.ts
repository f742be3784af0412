// The provider plugin's gRPC server (Pulumi's provider protocol, pulumi/pulumi proto/pulumi/provider.proto,
// through the message classes @pulumi/pulumi publishes). What it serves so far: the plugin's
// identity and its package schema (GetPluginInfo, GetSchema; a Handshake and Cancel that accept).
// Every other method answers UNIMPLEMENTED (grpc-js does for a method a service leaves out) until
// the kinds are served through it (issue 42).
import * as fs from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { GetSchemaResponse, ProviderHandshakeResponse, type GetSchemaRequest, type ProviderHandshakeRequest } from "@pulumi/pulumi/proto/provider_pb";
import { ResourceProviderService } from "@pulumi/pulumi/proto/provider_grpc_pb";

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

export async function startPluginServer(): Promise<PluginServer> {
  const version = pluginVersion();
  const server = new grpc.Server({ "grpc.max_receive_message_length": 1024 * 1024 * 400 });
  const impl: grpc.UntypedServiceImplementation = {
    handshake: (_call: grpc.ServerUnaryCall<ProviderHandshakeRequest, ProviderHandshakeResponse>, done: grpc.sendUnaryData<ProviderHandshakeResponse>) => {
      // Secrets and resource references: the plugin will take them as the engine sends them.
      done(null, new ProviderHandshakeResponse().setAcceptSecrets(true).setAcceptResources(true).setAcceptOutputs(false));
    },
    getPluginInfo: (_call: grpc.ServerUnaryCall<Empty, PluginInfo>, done: grpc.sendUnaryData<PluginInfo>) => {
      done(null, new PluginInfo().setVersion(version));
    },
    getSchema: (call: grpc.ServerUnaryCall<GetSchemaRequest, GetSchemaResponse>, done: grpc.sendUnaryData<GetSchemaResponse>) => {
      // Version 0 is the only schema version Pulumi defines.
      if (call.request.getVersion() > 0) {
        done({ code: grpc.status.INVALID_ARGUMENT, details: `keboola: schema version ${call.request.getVersion()} is not supported (0 is)` });
        return;
      }
      done(null, new GetSchemaResponse().setSchema(schemaText()));
    },
    cancel: (_call: grpc.ServerUnaryCall<Empty, Empty>, done: grpc.sendUnaryData<Empty>) => done(null, new Empty()),
  };
  server.addService(ResourceProviderService, impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    port,
    stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}
