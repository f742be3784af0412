// Messages from the plugin to the user, through the engine's Log service (pulumi/pulumi
// proto/pulumi/engine.proto): the engine prints them under the resource they are about, as it does
// a program's warnings. The engine's address is the plugin's first argument.
import * as grpc from "@grpc/grpc-js";
import { Empty } from "google-protobuf/google/protobuf/empty_pb";
import { EngineClient } from "@pulumi/pulumi/proto/engine_grpc_pb";
import { LogRequest, LogSeverity } from "@pulumi/pulumi/proto/engine_pb";

export interface EngineLog {
  warn(urn: string, message: string): Promise<void>;
  close(): void;
}

/** A log to the engine at `address`; without one (a plugin started by hand, or a test), messages are kept in `kept`. */
export function engineLog(address: string | undefined, kept: string[] = []): EngineLog {
  if (!address) {
    return {
      warn: async (urn, message) => void kept.push(`${urn}: ${message}`),
      close: () => undefined,
    };
  }
  const client = new EngineClient(address, grpc.credentials.createInsecure());
  return {
    warn: (urn, message) =>
      new Promise<void>((resolve) => {
        // A message that cannot be delivered must not fail the operation it is about.
        client.log(new LogRequest().setSeverity(LogSeverity.WARNING).setUrn(urn).setMessage(message), (_err: grpc.ServiceError | null, _res?: Empty) => resolve());
      }),
    close: () => client.close(),
  };
}
