import { parseArgs } from "node:util";
import type { EmulatorOptions, ProjectOptions } from "./core/context";
import { COMPONENT_TYPES, componentSpec, type ComponentSpec } from "./storage/components";

// The emulator's command line, parsed apart from starting it so the mapping of every flag to
// the emulator options can be tested in-process.

export type CommandLine =
  | { kind: "help" }
  | { kind: "error"; message: string }
  | { kind: "options"; options: EmulatorOptions };

const SHARES = ["fault-429", "fault-5xx", "fault-reset", "fault-lost-response"] as const;

export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv = {}): CommandLine {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string", default: "0" },
        host: { type: "string", default: "127.0.0.1" },
        token: { type: "string" },
        "limited-token": { type: "string" },
        "task-duration": { type: "string", default: "300" },
        "state-file": { type: "string" },
        "project-id": { type: "string" },
        "project-name": { type: "string" },
        project: { type: "string", multiple: true },
        seed: { type: "string" },
        "fault-seed": { type: "string" },
        "fault-429": { type: "string" },
        "fault-5xx": { type: "string" },
        "fault-reset": { type: "string" },
        "fault-lost-response": { type: "string" },
        "retry-after": { type: "string" },
        latency: { type: "string" },
        "fail-task": { type: "string", multiple: true },
        component: { type: "string", multiple: true },
        "project-feature": { type: "string", multiple: true },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (e) {
    return { kind: "error", message: e instanceof Error ? e.message : String(e) };
  }
  if (values.help) return { kind: "help" };
  const token = values.token ?? env.KBC_TOKEN;
  if (!token) return { kind: "error", message: "--token <master-token> is required (or set KBC_TOKEN)" };
  for (const flag of SHARES) {
    const raw = values[flag];
    if (raw === undefined) continue;
    const share = Number(raw);
    if (raw.trim() === "" || !(share >= 0 && share <= 1)) {
      return { kind: "error", message: `--${flag} must be a share between 0 and 1 (e.g. 0.05), got "${raw}"` };
    }
  }
  const components: ComponentSpec[] = [];
  for (const raw of values.component ?? []) {
    const parsed = parseComponentFlag(raw);
    if (typeof parsed === "string") return { kind: "error", message: parsed };
    components.push(parsed);
  }
  const projects: ProjectOptions[] = [];
  for (const raw of values.project ?? []) {
    const parsed = parseProjectFlag(raw);
    if (typeof parsed === "string") return { kind: "error", message: parsed };
    projects.push(parsed);
  }
  const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
  return {
    kind: "options",
    options: {
      port: Number(values.port),
      host: values.host,
      token,
      limitedToken: values["limited-token"],
      taskDurationMs: Number(values["task-duration"]),
      stateFile: values["state-file"],
      projectId: num(values["project-id"]),
      ...(values["project-name"] !== undefined ? { projectName: values["project-name"] } : {}),
      ...(projects.length ? { projects } : {}),
      seed: num(values.seed),
      ...(components.length ? { components } : {}),
      ...(values["project-feature"] ? { projectFeatures: values["project-feature"] } : {}),
      faults: {
        seed: num(values["fault-seed"]),
        rate429: num(values["fault-429"]),
        rate5xx: num(values["fault-5xx"]),
        rateReset: num(values["fault-reset"]),
        rateLostResponse: num(values["fault-lost-response"]),
        retryAfterSeconds: num(values["retry-after"]),
        latencyMs: num(values.latency),
        failTasks: values["fail-task"],
      },
    },
  };
}

/** `--component id[:type[:name]]`: the component, or the problem with the flag and its fix. */
function parseComponentFlag(raw: string): ComponentSpec | string {
  const [id = "", type, ...name] = raw.split(":");
  const parsed = componentSpec.safeParse({ id, ...(type ? { type } : {}), ...(name.length ? { name: name.join(":") } : {}) });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const what = issue.path[0] === "type" ? `the type "${type}" is not one of ${COMPONENT_TYPES.join(", ")}` : `the id "${id}": ${issue.message}`;
  return `--component ${raw}: ${what} (use --component <id>[:<type>[:<name>]], e.g. --component acme.ex-crm:extractor:CRM)`;
}

/**
 * `--project <id>:<name>:<master-token>`: a further project, or the problem with the flag and its
 * fix. The id is before the first colon and the token after the last (a token has none), so a
 * name may hold colons.
 */
function parseProjectFlag(raw: string): ProjectOptions | string {
  const first = raw.indexOf(":");
  const last = raw.lastIndexOf(":");
  // The messages quote the id and the name, never the token.
  const fix = "use --project <id>:<name>:<master-token>, e.g. --project 4343:Production:prod-master-token";
  if (first < 0 || first === last) return `--project needs an id, a name and a master token, separated by colons (${fix})`;
  const id = raw.slice(0, first);
  const name = raw.slice(first + 1, last);
  const token = raw.slice(last + 1);
  if (!/^[1-9][0-9]*$/.test(id)) return `--project: the id "${id}" is not a positive whole number (${fix})`;
  if (!name.trim()) return `--project ${id}: the name is empty (${fix})`;
  if (!token) return `--project ${id}: the master token is empty (${fix})`;
  return { id: Number(id), name, token };
}

export const USAGE = `Usage: npm run emulator -- --token <master-token> [options]
  --port <n>             port to listen on (0 = any free port; default 0)
  --host <addr>          address to bind (default 127.0.0.1)
  --limited-token <t>    also accept a non-admin token (no stream writes, no configuration management)
  --task-duration <ms>   how long async tasks and jobs take (default 300)
  --state-file <path>    keep state in this JSON file across restarts
  --project-id <n>       numeric project id (default 4242)
  --project-name <name>  the project's name, as tokens/verify answers it (default Emulated Project)
  --project <id>:<name>:<master-token>
                         serve a further project on the same host (repeatable): its own master
                         token and its own Storage, Stream, Queue, Scheduler and project services;
                         a request sees only its token's project. The first project is the one of
                         --token and --project-id. Kept in the state file, each under its id
  --fault-seed <n>       seed for fault injection (default 1)
  --fault-429 <share>    share of requests answered 429 with Retry-After (0..1)
  --retry-after <s>      Retry-After seconds on injected 429s (default 1)
  --fault-5xx <share>    share of requests answered 500/502/503
  --fault-reset <share>  share of requests whose connection is reset
  --fault-lost-response <share>
                         share of requests processed in full (writes applied) whose answer is
                         then dropped with the connection
  --latency <ms>         latency added to every request
  --fail-task <id|type>  make matching tasks/jobs fail (repeatable), e.g. api.create.sink
  --component <id>[:<type>[:<name>]]
                         add a component to the stack's catalog (repeatable; type defaults to
                         other), e.g. acme.ex-crm:extractor:CRM; kept in the state file
  --project-feature <f>  a feature of the project, as tokens/verify lists it (repeatable; replaces
                         the default list: syrup-jobs-limit-10, oauth-v3, queuev2, storage-types,
                         allow-ai, alternat); kept in the state file
`;
