import type { ClientSettings } from "./api/client";

// Where the provider finds its stack, in the order every Pulumi and Terraform provider takes:
// an explicit provider's own argument (the plugin door), then stack config (`keboola:host`,
// `keboola:token`, ...: handed to the dynamic provider's `configure` hook, or to the plugin's
// Configure), then the Terraform provider's environment variables (`KBC_HOST`, `KBC_TOKEN`, ...).
// What is configured wins over the environment: a CI job that exports `KBC_TOKEN` for one project
// must not redirect a provider configured for another. (Earlier versions let `KBC_TOKEN` win over
// everything, so that a rotated token reached `pulumi refresh` and `pulumi destroy`, which run with
// the configuration stored with the stack; `--run-program` does that the Pulumi way: it runs the
// program with the current stack config.)

export interface ConfigSource {
  get(key: string): string | undefined;
}

/** One provider setting: its environment variable, its type as stack config, what it is. */
export interface ConfigKey {
  env: string;
  type: "string" | "number";
  secret?: boolean;
  /** resolveSettings refuses to run without it (docs/installation-configuration.md says so; test/unit/reference-docs.test.ts checks it). */
  required?: boolean;
  description: string;
}

/** Where a setting is not set, the next place is asked: said once, in every description. */
const FALLBACK = "an explicit provider's argument wins over stack config, which wins over the environment";

/**
 * The provider's settings, by their name under `keboola:` (stack config, and the provider
 * plugin's configuration in its package schema, which is generated from this table).
 */
export const CONFIG_KEYS = {
  host: { env: "KBC_HOST", type: "string", required: true, description: "Storage API host, e.g. https://connection.keboola.com (or KBC_HOST)." },
  token: { env: "KBC_TOKEN", type: "string", secret: true, required: true, description: `Storage API token (or KBC_TOKEN; ${FALLBACK}: after a rotation, run refresh and destroy with --run-program).` },
  streamUrl: { env: "KBC_STREAM_URL", type: "string", description: "Stream API URL (or KBC_STREAM_URL); default: the one the stack's service index lists." },
  queueUrl: { env: "KBC_QUEUE_URL", type: "string", description: "Queue API URL (or KBC_QUEUE_URL); default: the one the stack's service index lists." },
  encryptionUrl: { env: "KBC_ENCRYPTION_URL", type: "string", description: "Encryption API URL (or KBC_ENCRYPTION_URL); default: the one the stack's service index lists." },
  schedulerUrl: { env: "KBC_SCHEDULER_URL", type: "string", description: "Scheduler API URL (or KBC_SCHEDULER_URL); default: the one the stack's service index lists." },
  taskTimeout: { env: "KBC_TASK_TIMEOUT", type: "number", description: "Deadline of one task or job in seconds (or KBC_TASK_TIMEOUT); default 600." },
  requestTimeout: { env: "KBC_REQUEST_TIMEOUT", type: "number", description: "Deadline of one HTTP request in seconds (or KBC_REQUEST_TIMEOUT); default 30." },
  projectId: {
    env: "KBC_PROJECT_ID",
    type: "number",
    description:
      "The id of the Keboola project the stack manages (or KBC_PROJECT_ID): when set, the first call of every command verifies that the token belongs to this project and fails, reading and writing nothing else, when it does not.",
  },
} as const satisfies Record<string, ConfigKey>;

export type ConfigName = keyof typeof CONFIG_KEYS;

export class ConfigurationError extends Error {
  override readonly name = "ConfigurationError";
}

/** Absent and empty are the same: an empty value leaves the setting to the next place. */
const given = (v: string | undefined): string | undefined => (v === undefined || v === "" ? undefined : v);

/**
 * Sources asked in order, the first that has a (non-empty) value answering: an explicit
 * provider's arguments before stack config (the plugin's Configure, drift's explicit providers).
 */
export function layered(...sources: ReadonlyArray<ConfigSource | undefined>): ConfigSource {
  return {
    get(key) {
      for (const source of sources) {
        const v = given(source?.get(key));
        if (v !== undefined) return v;
      }
      return undefined;
    },
  };
}

/** A setting's value: what is configured, else its environment variable. */
function readSetting(config: ConfigSource | undefined, env: NodeJS.ProcessEnv, name: ConfigName): string | undefined {
  return given(config?.get(`keboola:${name}`)) ?? given(env[CONFIG_KEYS[name].env]);
}

/**
 * Why a value cannot be the setting's, or undefined when it can: the one rule for the number
 * settings, which resolveSettings and the plugin's CheckConfig both apply.
 */
export function settingProblem(name: string, value: unknown): string | undefined {
  if (name === "projectId") return projectIdOf(value) === undefined ? `must be a Keboola project id (a positive whole number), got ${JSON.stringify(value)}` : undefined;
  if (name === "taskTimeout" || name === "requestTimeout") return positiveSeconds(value) === undefined ? `must be a positive number of seconds, got ${JSON.stringify(value)}` : undefined;
  return undefined;
}

/**
 * The project these settings are guarded to (`keboola:projectId`, else KBC_PROJECT_ID), or
 * undefined when they are not. Read apart from the other settings, so that a door can tell whether
 * a call must verify the token's project without resolving the rest (a check that needs no API
 * resolves nothing, and works without a host).
 */
export function configuredProjectId(config: ConfigSource | undefined, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = readSetting(config, env, "projectId");
  if (raw === undefined) return undefined;
  const id = projectIdOf(raw);
  if (id === undefined) {
    throw new ConfigurationError(
      `keboola:projectId (or ${CONFIG_KEYS.projectId.env}) ${settingProblem("projectId", raw) ?? ""}: set it to the id of the project the stack manages, e.g. \`pulumi config set keboola:projectId 1234\``,
    );
  }
  return id;
}

export function resolveSettings(config: ConfigSource | undefined, env: NodeJS.ProcessEnv = process.env): ClientSettings {
  const read = (name: ConfigName): string | undefined => readSetting(config, env, name);
  const host = read("host");
  if (!host) {
    throw new ConfigurationError(
      "The Keboola host is not configured: run `pulumi config set keboola:host https://connection.<stack>` or set KBC_HOST",
    );
  }
  const token = read("token");
  if (!token) {
    throw new ConfigurationError(
      "The Keboola token is not configured: run `pulumi config set --secret keboola:token <token>` or set KBC_TOKEN",
    );
  }
  const timeout = read("taskTimeout");
  const taskTimeoutSeconds = timeout === undefined ? 600 : positiveSeconds(timeout);
  if (taskTimeoutSeconds === undefined) {
    throw new ConfigurationError(`keboola:taskTimeout must be a positive number of seconds, got "${timeout}"`);
  }
  const requestTimeout = read("requestTimeout");
  const requestTimeoutSeconds = requestTimeout === undefined ? 30 : positiveSeconds(requestTimeout);
  if (requestTimeoutSeconds === undefined) {
    throw new ConfigurationError(`keboola:requestTimeout must be a positive number of seconds, got "${requestTimeout}"`);
  }
  const projectId = configuredProjectId(config, env);
  return {
    host: normalizeUrl(host),
    token,
    streamUrl: optionalUrl(read("streamUrl")),
    queueUrl: optionalUrl(read("queueUrl")),
    encryptionUrl: optionalUrl(read("encryptionUrl")),
    schedulerUrl: optionalUrl(read("schedulerUrl")),
    taskTimeoutSeconds,
    http: { requestTimeoutMs: requestTimeoutSeconds * 1000 },
    ...(projectId !== undefined ? { projectId } : {}),
  };
}

/** A timeout setting (text from stack config, or a provider argument's number): its seconds when a positive number, else undefined. */
export function positiveSeconds(value: unknown): number | undefined {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

/** A project id setting (text from stack config, or a provider argument's number): the id when a positive whole number, else undefined. */
export function projectIdOf(value: unknown): number | undefined {
  const n = typeof value === "number" ? value : typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

function normalizeUrl(url: string): string {
  const withScheme = /^https?:\/\//.test(url) ? url : `https://${url}`;
  return withScheme.replace(/\/+$/, "");
}

const optionalUrl = (url: string | undefined) => (url === undefined ? undefined : normalizeUrl(url));
