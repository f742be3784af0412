import { startPluginServer, type PluginServerOptions } from "./server";

// What the plugin's executables do (main.ts, and bundle-main.ts in the self-contained one): serve
// on a free port and tell the engine which on the first line of stdout, as Pulumi's plugin
// protocol asks (nothing else may be written there). The engine's address is the first argument.

export function serve(options: Omit<PluginServerOptions, "engine"> = {}): void {
  startPluginServer({ ...options, engine: process.argv[2] }).then(
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
}
