// The provider plugin's gRPC server as a client of Pulumi's protocol sees it (the CLI's view is
// test/e2e/package-schema.e2e.test.ts).
import * as fs from "node:fs";
import * as path from "node:path";
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import { GetSchemaRequest, ProviderHandshakeRequest, type GetSchemaResponse, type ProviderHandshakeResponse } from "@pulumi/pulumi/proto/provider_pb";
import type { PluginInfo } from "@pulumi/pulumi/proto/plugin_pb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { pluginVersion, startPluginServer, type PluginServer } from "../../provider/plugin/server";

let server: PluginServer;
let client: ResourceProviderClient;
beforeAll(async () => {
  server = await startPluginServer();
  client = new ResourceProviderClient(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
});
afterAll(async () => {
  client.close();
  await server.stop();
});

const unary = <Req, Res>(fn: (req: Req, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown, req: Req) =>
  new Promise<Res>((resolve, reject) => fn.call(client, req, (err, res) => (err ? reject(err) : resolve(res))));

it("answers its version and the package schema, and refuses a schema version it does not know", async () => {
  const root = path.join(__dirname, "..", "..");
  const info = await unary<Empty, PluginInfo>(client.getPluginInfo, new Empty());
  expect(info.getVersion()).toBe(pluginVersion());
  expect(pluginVersion()).toBe((JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version);
  const schema = await unary<GetSchemaRequest, GetSchemaResponse>(client.getSchema, new GetSchemaRequest().setVersion(0));
  expect(schema.getSchema()).toBe(fs.readFileSync(path.join(root, "schema.json"), "utf8"));
  await expect(unary<GetSchemaRequest, GetSchemaResponse>(client.getSchema, new GetSchemaRequest().setVersion(1))).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: "keboola: schema version 1 is not supported (0 is)" });
});

it("says in its handshake what it says in Configure: plain values, no resource references or outputs", async () => {
  const res = await unary<ProviderHandshakeRequest, ProviderHandshakeResponse>(client.handshake, new ProviderHandshakeRequest());
  expect([res.getAcceptSecrets(), res.getAcceptResources(), res.getAcceptOutputs()]).toEqual([false, false, false]);
});
