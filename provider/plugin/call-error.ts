import type * as grpc from "@grpc/grpc-js";

/** A failure the engine shows as it is: gRPC status, message and (for a partial create) details. */
export interface CallFailure {
  code: grpc.status;
  details: string;
  metadata?: grpc.Metadata;
}

/** Thrown by a method of the plugin to answer the engine with exactly this failure. */
export class CallError extends Error {
  constructor(readonly failure: CallFailure) {
    super(failure.details);
  }
}
