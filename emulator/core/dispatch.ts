import type { EmulatorContext } from "./context";
import { MOUNTS, isUnder } from "./mounts";
import { tokenBySecret } from "./tokens";
import { projectIdOfObjectKey } from "../storage/files";
import { accessKeyIdOf } from "../storage/s3-auth";

// Which project of the stack a request is for. A real stack serves many projects behind one host
// and the Storage API token decides which: a token belongs to one project, the one tokens/verify
// names as its `owner`, and its secret starts with that project's id (`<projectId>-<tokenId>-…`,
// keboola/storage-api-php-client apiary.apib "Update Token"; storage/tokens.ts newSecret). Every
// service authenticates the token and works in its project. Requests that carry no token name
// their project otherwise:
// - Stream ingestion, in its URL: `<stream-in>/stream/<projectId>/<sourceId>/<secret>`
//   (stream/ingestion.ts);
// - the object store, by the credentials a project's Storage issued (storage/s3-auth.ts), else by
//   the object's key, which starts `exp-15/<projectId>/` (storage/files.ts createFile);
// - the Encryption API, by its `projectId` parameter; it serves the stack, not a project, so this
//   only says whose request it was.
// A request that names no project (no token, an unknown one) is answered by the first project's
// services, as before there were more: their refusals are what any project answers.

/** The project the path names by id, when the path is one that names it. */
function projectIdInPath(url: URL): number | undefined {
  const path = url.pathname;
  if (isUnder(path, MOUNTS.streamIn)) {
    const m = /^\/stream\/(\d+)\//.exec(path.slice(MOUNTS.streamIn.length));
    return m ? Number(m[1]) : undefined;
  }
  if (isUnder(path, MOUNTS.encryption)) {
    // PHP reads the last of repeated parameters (encryption/routes.ts scopeOf).
    const id = url.searchParams.getAll("projectId").pop();
    return id && /^\d+$/.test(id) ? Number(id) : undefined;
  }
  return undefined;
}

/** The object key of an object-store path `/files/<bucket>/<key>` (each segment decoded), or "". */
function objectKeyInPath(path: string): string {
  const [, ...key] = path.slice(MOUNTS.files.length + 1).split("/");
  try {
    return key.map(decodeURIComponent).join("/");
  } catch {
    return "";
  }
}

/** The `key` field of a browser form upload (`POST /files/<bucket>`), read from a copy of the body. */
async function formKey(request: Request): Promise<string> {
  try {
    const key = (await request.clone().formData()).get("key");
    return typeof key === "string" ? key : "";
  } catch {
    return "";
  }
}

/** The project of an object-store request: whose Storage issued its credentials, else whose key it is. */
async function objectStoreProject(request: Request, url: URL, contexts: readonly EmulatorContext[]): Promise<EmulatorContext | undefined> {
  const accessKey = accessKeyIdOf(request.headers, url.searchParams);
  const issuer = accessKey ? contexts.find((c) => Object.hasOwn(c.state.storage.credentials, accessKey)) : undefined;
  if (issuer) return issuer;
  let key = objectKeyInPath(url.pathname);
  if (!key && request.method === "POST" && !url.searchParams.has("uploads")) key = await formKey(request);
  const id = projectIdOfObjectKey(key);
  return contexts.find((c) => c.state.project.id === id);
}

/**
 * The project whose live token the header carries: as it is, or (the Stream API's reading,
 * stream/auth.ts tokenHeader) the part after a scheme such as `Bearer `.
 */
function tokenProject(header: string | null, contexts: readonly EmulatorContext[]): EmulatorContext | undefined {
  if (!header) return undefined;
  const space = header.indexOf(" ");
  const secrets = space >= 0 ? [header, header.slice(space + 1)] : [header];
  return contexts.find((c) => secrets.some((s) => tokenBySecret(c.state.tokens, s, c.now())));
}

/** The project a request is for, or undefined when it names none of the stack's. */
export async function projectOfRequest(request: Request, contexts: readonly EmulatorContext[]): Promise<EmulatorContext | undefined> {
  const url = new URL(request.url);
  if (isUnder(url.pathname, MOUNTS.files)) return objectStoreProject(request, url, contexts);
  if (isUnder(url.pathname, MOUNTS.streamIn) || isUnder(url.pathname, MOUNTS.encryption)) {
    const id = projectIdInPath(url);
    return contexts.find((c) => c.state.project.id === id);
  }
  return tokenProject(request.headers.get("X-StorageApi-Token"), contexts);
}
