#!/usr/bin/env node
import { parseArgs } from "node:util";
import { startEmulator } from "./server";

// `npm run emulator -- --port 0 --token <master>`: the first stdout line is the base URL.
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "0" },
      host: { type: "string", default: "127.0.0.1" },
      token: { type: "string" },
      "limited-token": { type: "string" },
      "task-duration": { type: "string", default: "300" },
      "state-file": { type: "string" },
      "project-id": { type: "string" },
      seed: { type: "string" },
      "fault-seed": { type: "string" },
      "fault-429": { type: "string" },
      "fault-5xx": { type: "string" },
      "fault-reset": { type: "string" },
      "retry-after": { type: "string" },
      latency: { type: "string" },
      "fail-task": { type: "string", multiple: true },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const token = values.token ?? process.env.KBC_TOKEN;
  if (!token) {
    process.stderr.write("emulator: --token <master-token> is required (or set KBC_TOKEN)\n" + USAGE);
    process.exit(2);
  }
  const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
  const emulator = await startEmulator({
    port: Number(values.port),
    host: values.host,
    token,
    limitedToken: values["limited-token"],
    taskDurationMs: Number(values["task-duration"]),
    stateFile: values["state-file"],
    projectId: num(values["project-id"]),
    seed: num(values.seed),
    faults: {
      seed: num(values["fault-seed"]),
      rate429: num(values["fault-429"]),
      rate5xx: num(values["fault-5xx"]),
      rateReset: num(values["fault-reset"]),
      retryAfterSeconds: num(values["retry-after"]),
      latencyMs: num(values.latency),
      failTasks: values["fail-task"],
    },
  });
  process.stdout.write(`${emulator.url}\n`);
  process.stderr.write(
    `Keboola emulator: storage ${emulator.urls.storage}, stream ${emulator.urls.stream}, queue ${emulator.urls.queue}\n`,
  );
  const stop = (): void => {
    void emulator.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

const USAGE = `Usage: npm run emulator -- --token <master-token> [options]
  --port <n>             port to listen on (0 = any free port; default 0)
  --host <addr>          address to bind (default 127.0.0.1)
  --limited-token <t>    also accept a non-admin token (no stream writes, no configuration management)
  --task-duration <ms>   how long async tasks and jobs take (default 300)
  --state-file <path>    keep state in this JSON file across restarts
  --project-id <n>       numeric project id (default 4242)
  --fault-seed <n>       seed for fault injection (default 1)
  --fault-429 <share>    share of requests answered 429 with Retry-After (0..1)
  --retry-after <s>      Retry-After seconds on injected 429s (default 1)
  --fault-5xx <share>    share of requests answered 500/502/503
  --fault-reset <share>  share of requests whose connection is reset
  --latency <ms>         latency added to every request
  --fail-task <id|type>  make matching tasks/jobs fail (repeatable), e.g. api.create.sink
`;

main().catch((err: unknown) => {
  process.stderr.write(`emulator: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
