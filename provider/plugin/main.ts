#!/usr/bin/env node
// pulumi-resource-keboola: the provider plugin's executable. The engine starts it (its argument is
// the engine's address, for logs) and reads the port of its gRPC server from the first line of
// stdout, as Pulumi's plugin protocol asks; nothing else may be written to stdout.
import { startPluginServer } from "./server";

startPluginServer({ engine: process.argv[2] }).then(
  (server) => {
    process.stdout.write(`${server.port}\n`);
    // The engine ends the plugin with a signal when it is done with it.
    for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => void server.stop().then(() => process.exit(0)));
  },
  (err: unknown) => {
    process.stderr.write(`pulumi-resource-keboola: could not start: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
