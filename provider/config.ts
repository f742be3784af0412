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

const KEYS = {
  host: ["keboola:host", "KBC_HOST"],
  token: ["keboola:token", "KBC_TOKEN"],
  streamUrl: ["keboola:streamUrl", "KBC_STREAM_URL"],
  queueUrl: ["keboola:queueUrl", "KBC_QUEUE_URL"],
  encryptionUrl: ["keboola:encryptionUrl", "KBC_ENCRYPTION_URL"],
  schedulerUrl: ["keboola:schedulerUrl", "KBC_SCHEDULER_URL"],
  taskTimeout: ["keboola:taskTimeout", "KBC_TASK_TIMEOUT"],
  requestTimeout: ["keboola:requestTimeout", "KBC_REQUEST_TIMEOUT"],
} as const;

export class ConfigurationError extends Error {
  override readonly name = "ConfigurationError";
}

export function resolveSettings(config: ConfigSource | undefined, env: NodeJS.ProcessEnv = process.env): ClientSettings {
  const read = ([configKey, envKey]: readonly [string, string]): string | undefined => {
    const v = config?.get(configKey) ?? env[envKey];
    return v === undefined || v === "" ? undefined : v;
  };
  const host = read(KEYS.host);
  if (!host) {
    throw new ConfigurationError(
      "The Keboola host is not configured: run `pulumi config set keboola:host https://connection.<stack>` or set KBC_HOST",
    );
  }
  const envToken = env.KBC_TOKEN;
  const token = envToken !== undefined && envToken !== "" ? envToken : read(KEYS.token);
  if (!token) {
    throw new ConfigurationError(
      "The Keboola token is not configured: run `pulumi config set --secret keboola:token <token>` or set KBC_TOKEN",
    );
  }
  const timeout = read(KEYS.taskTimeout);
  const taskTimeoutSeconds = timeout === undefined ? 600 : Number(timeout);
  if (!Number.isFinite(taskTimeoutSeconds) || taskTimeoutSeconds <= 0) {
    throw new ConfigurationError(`keboola:taskTimeout must be a positive number of seconds, got "${timeout}"`);
  }
  const requestTimeout = read(KEYS.requestTimeout);
  const requestTimeoutSeconds = requestTimeout === undefined ? 30 : Number(requestTimeout);
  if (!Number.isFinite(requestTimeoutSeconds) || requestTimeoutSeconds <= 0) {
    throw new ConfigurationError(`keboola:requestTimeout must be a positive number of seconds, got "${requestTimeout}"`);
  }
  return {
    host: normalizeUrl(host),
    token,
    streamUrl: optionalUrl(read(KEYS.streamUrl)),
    queueUrl: optionalUrl(read(KEYS.queueUrl)),
    encryptionUrl: optionalUrl(read(KEYS.encryptionUrl)),
    schedulerUrl: optionalUrl(read(KEYS.schedulerUrl)),
    taskTimeoutSeconds,
    http: { requestTimeoutMs: requestTimeoutSeconds * 1000 },
  };
}

function normalizeUrl(url: string): string {
  const withScheme = /^https?:\/\//.test(url) ? url : `https://${url}`;
  return withScheme.replace(/\/+$/, "");
}

const optionalUrl = (url: string | undefined) => (url === undefined ? undefined : normalizeUrl(url));
