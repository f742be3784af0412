import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { ResourceProviderClient } from "@pulumi/pulumi/proto/provider_grpc_pb";
import * as proto from "@pulumi/pulumi/proto/provider_pb";
import { Status } from "@pulumi/pulumi/proto/status_pb";
import { startPluginServer, type PluginServer } from "../../provider/plugin/server";
import { fromStruct } from "../../provider/plugin/values";
import type { Props } from "../../provider/lifecycle/types";
import { Struct } from "google-protobuf/google/protobuf/struct_pb";

// The provider plugin driven as the Pulumi engine drives it: a gRPC client of its server, requests
// built from plain records, answers read back as plain records (secrets still marked).

export const urnOf = (type: string, name: string, stack = "test") => `urn:pulumi:${stack}::harness::keboola:index:${type}::${name}`;

export interface PluginCall {
  type: string;
  name: string;
  stack?: string;
}

export interface Plugin {
  server: PluginServer;
  client: ResourceProviderClient;
  /** Configure with the given `keboola:` settings (as stack config sends them). */
  configure(settings: Record<string, string>): Promise<proto.ConfigureResponse>;
  check(r: PluginCall, olds: Props, news: Props): Promise<{ inputs: Props; failures: Array<{ property: string; reason: string }> }>;
  diff(r: PluginCall, id: string, olds: Props, news: Props): Promise<proto.DiffResponse>;
  create(r: PluginCall, props: Props): Promise<{ id: string; props: Props }>;
  read(r: PluginCall, id: string, props: Props): Promise<{ id: string; props: Props; inputs: Props }>;
  update(r: PluginCall, id: string, olds: Props, news: Props): Promise<Props>;
  delete(r: PluginCall, id: string, props: Props): Promise<void>;
  /** Invoke a function by its name (getBucket, ...): its answer, or its argument failures. */
  invoke(name: string, args: Props): Promise<{ result: Props; failures: Array<{ property: string; reason: string }> }>;
  close(): Promise<void>;
}

/** The failure a call answered, with its rich status details (ErrorResourceInitFailed) decoded. */
export function initFailure(err: unknown): proto.ErrorResourceInitFailed | undefined {
  if (!(err instanceof Error) || !("metadata" in err) || !(err.metadata instanceof grpc.Metadata)) return undefined;
  const [bin] = err.metadata.get("grpc-status-details-bin");
  if (!(bin instanceof Buffer)) return undefined;
  const any = Status.deserializeBinary(bin).getDetailsList()[0];
  return any?.unpack((b) => proto.ErrorResourceInitFailed.deserializeBinary(b), "pulumirpc.ErrorResourceInitFailed") ?? undefined;
}

/** A plugin server on the kinds' sources; its messages to the user land in `messages`. */
export async function startPlugin(options: { messages?: string[] } = {}): Promise<Plugin> {
  const server = await startPluginServer({ messages: options.messages ?? [] });
  const client = new ResourceProviderClient(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  const unary = <Req, Res>(fn: (req: Req, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown, req: Req) =>
    new Promise<Res>((resolve, reject) => fn.call(client, req, (err, res) => (err ? reject(err) : resolve(res))));
  const struct = (p: Props) => Struct.fromJavaScript(JSON.parse(JSON.stringify(p)));
  /** A request about the resource `r`, as the engine addresses it: URN, name and type token. */
  const about = <T extends { setUrn(v: string): T; setName(v: string): T; setType(v: string): T }>(req: T, r: PluginCall): T =>
    req.setUrn(urnOf(r.type, r.name, r.stack)).setName(r.name).setType(`keboola:index:${r.type}`);
  const failures = (list: proto.CheckFailure[]) => list.map((f) => ({ property: f.getProperty(), reason: f.getReason() }));
  return {
    server,
    client,
    configure: (settings) => {
      const req = new proto.ConfigureRequest().setArgs(struct({}));
      for (const [k, v] of Object.entries(settings)) req.getVariablesMap().set(`keboola:config:${k}`, v);
      return unary(client.configure, req);
    },
    async check(r, olds, news) {
      const res = await unary<proto.CheckRequest, proto.CheckResponse>(
        client.check,
        about(new proto.CheckRequest(), r).setOlds(struct(olds)).setNews(struct(news)),
      );
      return { inputs: fromStruct(res.getInputs()), failures: failures(res.getFailuresList()) };
    },
    diff: (r, id, olds, news) =>
      unary(client.diff, about(new proto.DiffRequest(), r).setId(id).setOlds(struct(olds)).setNews(struct(news))),
    async create(r, props) {
      const res = await unary<proto.CreateRequest, proto.CreateResponse>(client.create, about(new proto.CreateRequest(), r).setProperties(struct(props)));
      return { id: res.getId(), props: fromStruct(res.getProperties()) };
    },
    async read(r, id, props) {
      const res = await unary<proto.ReadRequest, proto.ReadResponse>(client.read, about(new proto.ReadRequest(), r).setId(id).setProperties(struct(props)));
      return { id: res.getId(), props: fromStruct(res.getProperties()), inputs: fromStruct(res.getInputs()) };
    },
    async update(r, id, olds, news) {
      const res = await unary<proto.UpdateRequest, proto.UpdateResponse>(
        client.update,
        about(new proto.UpdateRequest(), r).setId(id).setOlds(struct(olds)).setNews(struct(news)),
      );
      return fromStruct(res.getProperties());
    },
    async delete(r, id, props) {
      await unary<proto.DeleteRequest, Empty>(client.delete, about(new proto.DeleteRequest(), r).setId(id).setProperties(struct(props)));
    },
    async invoke(name, args) {
      const res = await unary<proto.InvokeRequest, proto.InvokeResponse>(client.invoke, new proto.InvokeRequest().setTok(`keboola:index:${name}`).setArgs(struct(args)));
      return { result: fromStruct(res.getReturn()), failures: failures(res.getFailuresList()) };
    },
    async close() {
      client.close();
      await server.stop();
    },
  };
}
