#!/usr/bin/env node
import { startEmulator } from "./server";
import { parseCommandLine, USAGE } from "./cli-options";
import { ProjectsConflict } from "./core/projects";

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
  const emulator = await startEmulator(parsed.options).catch((err: unknown) => {
    // Projects the options (or the state file) make clash: the problem, without a stack trace.
    if (!(err instanceof ProjectsConflict)) throw err;
    process.stderr.write(`emulator: ${err.message}\n`);
    process.exit(1);
  });
  process.stdout.write(`${emulator.url}\n`);
  process.stderr.write(
    `Keboola emulator: storage ${emulator.urls.storage}, stream ${emulator.urls.stream}, queue ${emulator.urls.queue}, encryption ${emulator.urls.encryption}, scheduler ${emulator.urls.scheduler}\n`,
  );
  if (emulator.projects.length > 1) {
    process.stderr.write(`Projects: ${emulator.projects.map((p) => `${p.id} (${p.name})`).join(", ")}\n`);
  }
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
