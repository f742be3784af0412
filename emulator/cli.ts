#!/usr/bin/env node
import { startEmulator } from "./server";
import { parseCommandLine, USAGE } from "./cli-options";

// `npm run emulator -- --port 0 --token <master>`: the first stdout line is the base URL.
async function main(): Promise<void> {
  const parsed = parseCommandLine(process.argv.slice(2), process.env);
  if (parsed.kind === "help") {
    process.stdout.write(USAGE);
    return;
  }
  if (parsed.kind === "error") {
    process.stderr.write(`emulator: ${parsed.message}\n` + USAGE);
    process.exit(2);
  }
  const emulator = await startEmulator(parsed.options);
  process.stdout.write(`${emulator.url}\n`);
  process.stderr.write(
    `Keboola emulator: storage ${emulator.urls.storage}, stream ${emulator.urls.stream}, queue ${emulator.urls.queue}, encryption ${emulator.urls.encryption}, scheduler ${emulator.urls.scheduler}\n`,
  );
  const stop = (): void => {
    void emulator.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`emulator: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
