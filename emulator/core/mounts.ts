import { getPath } from "hono/utils/url";

/**
 * Where each service is mounted on the emulator's one host (a real stack gives most of them a
 * host of their own; the Storage index lists their URLs).
 */
export const MOUNTS = {
  storage: "/v2/storage",
  stream: "/stream",
  streamIn: "/stream-in",
  queue: "/queue",
  encryption: "/encryption",
  scheduler: "/scheduler",
  import: "/import",
  files: "/files",
  notification: "/notification",
  dataScience: "/data-science",
  editor: "/editor",
} as const;

/** Whether the path is the mount's or one under it. */
export function isUnder(path: string, mount: string): boolean {
  return path === mount || path.startsWith(`${mount}/`);
}

/**
 * The path a request is routed by. Hono matches paths strictly, and its `strict: false` applies
 * to a whole app only, so the exceptions are made here: the Storage API takes each of its paths
 * with or without one trailing slash, and every other service takes its root at `<mount>/` as at
 * `<mount>` (on a host of its own, both are `/`). Handlers still see the URL as it was sent.
 */
export function routingPath(request: Request): string {
  const path = getPath(request);
  if (path.length < 2 || !path.endsWith("/")) return path;
  const trimmed = path.slice(0, -1);
  const storage = trimmed === MOUNTS.storage || trimmed.startsWith(`${MOUNTS.storage}/`);
  return storage || Object.values<string>(MOUNTS).includes(trimmed) ? trimmed : path;
}
