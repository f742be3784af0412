import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { EmulatorContext } from "../core/context";
import { parseJson, type JsonValue } from "../../keboola/json";
import type { ServiceEnv } from "../core/http";
import { apiErrorControlBody, noRouteMessage } from "../core/api-error-control";
import { exceptionId } from "../storage/errors";
import { encryptJson, encryptValue, phpString, type CipherScope } from "./cipher";

// The Encryption API, mounted at `<base>/encryption` (a real stack serves it at
// `https://encryption.<stack>` and lists it as the `encryption` service of the Storage index):
// `POST /encrypt?componentId=&projectId=&configId=&branchType=`, all optional, no token.
//
// Where the behaviour comes from:
// - keboola/developers-docs `overview/encryption.md`: the parameters, the scope (and prefix) they
//   select, configId or branchType only with projectId, `text/plain` (one string) or
//   `application/json` (every scalar under a `#` key, at any depth), ciphers of any scope left as
//   they are, and IDs that need not exist (an unknown componentId is not refused).
// - the API's OpenAPI description (api.keboola.com `?service=encryption`): branchType is
//   `default` or `dev`.
// - keboola/docker-bundle `src/Controller/PublicController.php` `encryptAction` (the API before it
//   moved to keboola/encryption-api): the checks and their messages, `Unknown parameter: '<names>'.`,
//   `Component Id is required.`, `The configId parameter must be used together with projectId.`,
//   `Incorrect Content-Type.` (the type is found by substring, case-insensitively, `text/plain`
//   first), and the JSON body read by keboola/syrup `src/Keboola/Syrup/Controller/BaseController.php`
//   `getPostJson` (an empty body, `0` or `null` is `[]`; invalid JSON is
//   `Bad JSON format of request body: <json_last_error_msg>`, "Syntax error" for what JSON.parse refuses).
// - keboola/object-encryptor `ObjectEncryptor::encrypt` (see cipher.ts): what is encrypted.
// - errors: keboola/api-error-control (core/api-error-control.ts), status 400 for user errors;
//   unknown routes and methods as Symfony's router words them (404, 405); all rendered by the app's onError.
// Not public, so modelled on the messages above: the branchType checks.
//
// One service a stack, whatever the number of projects: it takes no token, and one key serves
// every project (StackShared.encryption). What keeps project A's ciphers from opening in project B
// is the scope: object-encryptor binds `projectId` into the cipher's KMS EncryptionContext
// (keboola/object-encryptor src/Wrapper/ProjectKMSWrapper.php sets the metadata,
// src/Wrapper/GenericKMSWrapper.php passes it to generateDataKey and decrypt with the stack's one
// KeyId), and a job opens its ciphers for its own project only (cipher.ts jobScopes).

const PARAMETERS = ["componentId", "projectId", "configId", "branchType"];
const BRANCH_TYPES = ["default", "dev"];

export class EncryptionHttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
  ) {
    super(message);
  }
}

/** The cipher scope the query parameters select, or the API's refusal. */
export function scopeOf(query: URLSearchParams): CipherScope {
  const unknown = [...new Set(query.keys())].filter((k) => !PARAMETERS.includes(k));
  if (unknown.length) throw new EncryptionHttpError(400, `Unknown parameter: '${unknown.join(",")}'.`);
  // PHP reads the last of repeated parameters; an empty one is no parameter.
  const param = (name: string): string | undefined => query.getAll(name).pop() || undefined;
  const componentId = param("componentId");
  const projectId = param("projectId");
  const configId = param("configId");
  const branchType = param("branchType");
  if (configId && !projectId) throw new EncryptionHttpError(400, "The configId parameter must be used together with projectId.");
  if (branchType && !projectId) throw new EncryptionHttpError(400, "The branchType parameter must be used together with projectId.");
  if (branchType && !BRANCH_TYPES.includes(branchType)) {
    throw new EncryptionHttpError(400, `The branchType parameter must be one of "${BRANCH_TYPES.join('", "')}".`);
  }
  if (!componentId && (!projectId || configId)) throw new EncryptionHttpError(400, "Component Id is required.");
  if (!componentId) return branchType ? { kind: "projectWideBranchType", projectId, branchType } : { kind: "projectWide", projectId };
  if (!projectId) return { kind: "component", componentId };
  if (configId) {
    return branchType
      ? { kind: "branchTypeConfiguration", componentId, projectId, configId, branchType }
      : { kind: "configuration", componentId, projectId, configId };
  }
  return branchType ? { kind: "branchType", componentId, projectId, branchType } : { kind: "project", componentId, projectId };
}

function parseJsonBody(text: string): JsonValue {
  if (text === "" || text === "0" || text === "null") return [];
  try {
    return parseJson(text);
  } catch {
    throw new EncryptionHttpError(400, "Bad JSON format of request body: Syntax error");
  }
}

export function encryptionApp(ctx: EmulatorContext): Hono<ServiceEnv> {
  const api = new Hono<ServiceEnv>();

  api.post("/encrypt", async (c) => {
    const scope = scopeOf(new URL(c.req.url).searchParams);
    const type = (c.req.header("Content-Type") ?? "").toLowerCase();
    const key = ctx.stack.encryption.key;
    if (type.includes("text/plain")) {
      const cipher = encryptValue(key, scope, await c.req.text());
      return c.body(cipher, 200, { "Content-Type": "text/plain; charset=UTF-8" });
    }
    if (type.includes("application/json")) {
      const document = parseJsonBody(await c.req.text());
      // A JSON scalar is one value to encrypt, as the encryptor takes any scalar.
      const encrypted =
        document !== null && typeof document === "object"
          ? encryptJson(key, scope, document)
          : encryptValue(key, scope, phpString(document));
      return c.body(JSON.stringify(encrypted), 200, { "Content-Type": "application/json" });
    }
    throw new EncryptionHttpError(400, "Incorrect Content-Type.");
  });
  // Symfony's router: the known path with another method, then any other path.
  api.all("/encrypt", (c) => {
    throw new EncryptionHttpError(405, noRouteMessage(c.req.method, c.req.url, ["POST"]));
  });
  api.all("*", (c) => {
    throw new EncryptionHttpError(404, noRouteMessage(c.req.method, c.req.url));
  });

  api.onError((err, c) => {
    if (err instanceof EncryptionHttpError) return c.json(apiErrorControlBody(err.message, err.status, exceptionId(ctx)), err.status);
    throw err;
  });
  return api;
}
