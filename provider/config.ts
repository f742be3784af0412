import type { ClientSettings } from "./api/client";

// Where the provider finds its stack: stack config (`keboola:host`, `keboola:token`, ...) handed
// to the dynamic provider's `configure` hook inside the provider process, with the Terraform
// provider's environment variables as fallbacks. One exception to "config first": a `KBC_TOKEN` in
// the environment wins over `keboola:token`. Pulumi keeps the stack config a provider was
// configured with (the token included, encrypted) in the state, and `refresh` and `destroy` run
// with that stored copy without running the program; after a token rotation the environment is
// the only way to hand them the new one.

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

/**
 * The provider's settings, by their name under `keboola:` (stack config, and the provider
 * plugin's configuration in its package schema, which is generated from this table).
 */
export const CONFIG_KEYS = {
  host: { env: "KBC_HOST", type: "string", required: true, description: "Storage API host, e.g. https://connection.keboola.com (or KBC_HOST)." },
  token: { env: "KBC_TOKEN", type: "string", secret: true, required: true, description: "Storage API token (or KBC_TOKEN, which wins over stack config so that a rotated token reaches refresh and destroy)." },
  streamUrl: { env: "KBC_STREAM_URL", type: "string", description: "Stream API URL (or KBC_STREAM_URL); default: the one the stack's service index lists." },
  queueUrl: { env: "KBC_QUEUE_URL", type: "string", description: "Queue API URL (or KBC_QUEUE_URL); default: the one the stack's service index lists." },
  encryptionUrl: { env: "KBC_ENCRYPTION_URL", type: "string", description: "Encryption API URL (or KBC_ENCRYPTION_URL); default: the one the stack's service index lists." },
  schedulerUrl: { env: "KBC_SCHEDULER_URL", type: "string", description: "Scheduler API URL (or KBC_SCHEDULER_URL); default: the one the stack's service index lists." },
  taskTimeout: { env: "KBC_TASK_TIMEOUT", type: "number", description: "Deadline of one task or job in seconds (or KBC_TASK_TIMEOUT); default 600." },
  requestTimeout: { env: "KBC_REQUEST_TIMEOUT", type: "number", description: "Deadline of one HTTP request in seconds (or KBC_REQUEST_TIMEOUT); default 30." },
} as const satisfies Record<string, ConfigKey>;

export type ConfigName = keyof typeof CONFIG_KEYS;

export class ConfigurationError extends Error {
  override readonly name = "ConfigurationError";
}

export function resolveSettings(config: ConfigSource | undefined, env: NodeJS.ProcessEnv = process.env): ClientSettings {
  const read = (name: ConfigName): string | undefined => {
    const v = config?.get(`keboola:${name}`) ?? env[CONFIG_KEYS[name].env];
    return v === undefined || v === "" ? undefined : v;
  };
  const host = read("host");
  if (!host) {
    throw new ConfigurationError(
      "The Keboola host is not configured: run `pulumi config set keboola:host https://connection.<stack>` or set KBC_HOST",
    );
  }
  const envToken = env.KBC_TOKEN;
  const token = envToken !== undefined && envToken !== "" ? envToken : read("token");
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
  return {
    host: normalizeUrl(host),
    token,
    streamUrl: optionalUrl(read("streamUrl")),
    queueUrl: optionalUrl(read("queueUrl")),
    encryptionUrl: optionalUrl(read("encryptionUrl")),
    schedulerUrl: optionalUrl(read("schedulerUrl")),
    taskTimeoutSeconds,
    http: { requestTimeoutMs: requestTimeoutSeconds * 1000 },
  };
}

/** A timeout setting (text from stack config, or a provider argument's number): its seconds when a positive number, else undefined. */
export function positiveSeconds(value: unknown): number | undefined {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

function normalizeUrl(url: string): string {
  const withScheme = /^https?:\/\//.test(url) ? url : `https://${url}`;
  return withScheme.replace(/\/+$/, "");
}

const optionalUrl = (url: string | undefined) => (url === undefined ? undefined : normalizeUrl(url));
