import type { AddressInfo } from "node:net";
import { Server } from "node:http";
import { Hono } from "hono";
import { parseJson } from "../keboola/json";
import { serve } from "@hono/node-server";
import type { NodeBindings } from "./core/http";
import { isWriteMethod, type EmulatorContext, type EmulatorOptions, type EmulatorState, type ProjectState, type RequestLogEntry, type ServiceUrls } from "./core/context";
import { countFaults, decideFault, faultOptionsSchema, type FaultCounts, type FaultOptions } from "./core/faults";
import { seededRandom } from "./core/random";
import { loadState } from "./core/initial-state";
import { ProjectsConflict, masterTokenOf, projectsConflict } from "./core/projects";
import { createStack } from "./core/stack";
import { projectOfRequest } from "./core/dispatch";
import { MOUNTS, routingPath } from "./core/mounts";
import { projectApp } from "./project-app";
import { jobInputs } from "./queue/jobs";
import type { JobInputs } from "./queue/components";
import { encryptionApp } from "./encryption/routes";
import { ClockError, clockJson, requestedOffset } from "./core/clock";
import { apiErrorControlBody } from "./core/api-error-control";
import { exceptionId } from "./storage/errors";

export { initialState } from "./core/initial-state";

/** A project the emulator serves. */
export interface EmulatorProject {
  readonly id: number;
  readonly name: string;
  /** The secret of its master token now (the declared one, until a refresh through the API). */
  readonly masterToken: string;
  readonly state: ProjectState;
  /** The context its services are built on (for tests that reach into one project's state). */
  readonly context: EmulatorContext;
}

export interface Emulator {
  /** Base URL (the Storage API host); other services are listed in its index. */
  readonly url: string;
  readonly urls: ServiceUrls;
  readonly port: number;
  /** The whole state: the first project's at the top level, further projects in `projects`. */
  readonly state: EmulatorState;
  /** The first project's context. */
  readonly context: EmulatorContext;
  /** Every project on the emulator, the first (`token`, `projectId`) first, then `projects` in order. */
  readonly projects: readonly EmulatorProject[];
  /** Every API request handled so far (method, path, status, the project it hit), oldest first. */
  requests(): RequestLogEntry[];
  clearRequests(): void;
  /** Requests that could have changed something (anything but GET/HEAD/OPTIONS). */
  writes(): RequestLogEntry[];
  /** Faults injected into the logged requests, per kind and per method. */
  faultCounts(): FaultCounts;
  setFaults(faults: FaultOptions): void;
  /**
   * What the last run of a queue job handed its component: the configuration, rows and state
   * with their `#` values decrypted. Kept in memory only (never in state, files or logs).
   */
  jobInputs(jobId: string): JobInputs | undefined;
  close(): Promise<void>;
}

/** The top-level app's request variables: the project the request is served in. */
interface StackEnv {
  Bindings: NodeBindings;
  Variables: { project: Hono<{ Bindings: NodeBindings }> };
}

export async function startEmulator(options: EmulatorOptions): Promise<Emulator> {
  const opts = { taskDurationMs: 300, ...options };
  const state = loadState(opts);
  const conflict = projectsConflict(state);
  if (conflict) throw new ProjectsConflict(conflict);
  const log: RequestLogEntry[] = [];
  let faults: FaultOptions = opts.faults ?? {};
  let faultRandom = seededRandom(faults.seed ?? 1);
  // Faults injected since the options were last set, for FaultOptions.limit.
  let injected = 0;
  let baseUrl = "";

  const urls = (): ServiceUrls => ({
    storage: baseUrl,
    stream: baseUrl + MOUNTS.stream,
    streamIn: baseUrl + MOUNTS.streamIn,
    queue: baseUrl + MOUNTS.queue,
    encryption: baseUrl + MOUNTS.encryption,
    scheduler: baseUrl + MOUNTS.scheduler,
    import: baseUrl + MOUNTS.import,
    files: baseUrl + MOUNTS.files,
    notification: baseUrl + MOUNTS.notification,
    dataScience: baseUrl + MOUNTS.dataScience,
    editor: baseUrl + MOUNTS.editor,
  });

  const stack = createStack({ state, options: opts, baseUrl: () => baseUrl, urls, faults: () => faults });
  // The further projects as declared now go to the file at once: a project a later start no
  // longer declares is served with the tokens it was last served with (core/projects.ts).
  if (state.projects?.length) stack.save();
  const contexts = stack.contexts;
  // The first project's context: the stack's own services (encryption, faults) use it, and a
  // request of no project is answered by its services.
  const ctx = contexts[0]!;
  const apps = new Map(contexts.map((c) => [c, projectApp(c)]));

  const app = new Hono<StackEnv>({ getPath: routingPath });

  // Control endpoints for tests and demos: never faulted, never logged.
  // `?projectId=<id>`: only the requests served in that project (RequestLogEntry.projectId).
  app.get("/_emulator/requests", (c) => {
    const id = c.req.query("projectId");
    return c.json(id === undefined ? log : log.filter((e) => String(e.projectId) === id));
  });
  app.delete("/_emulator/requests", (c) => {
    log.length = 0;
    return c.body(null, 204);
  });
  app.get("/_emulator/state", (c) => {
    if (stack.settle()) stack.save();
    return c.json(state);
  });
  // The emulated clock (core/clock.ts): moving it forward completes what became due meanwhile
  // (tasks, jobs, schedules' fires) before answering.
  app.get("/_emulator/clock", (c) => c.json(clockJson(stack.now(), state.clockOffsetMs ?? 0)));
  app.post("/_emulator/clock", async (c) => {
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      body = undefined;
    }
    try {
      state.clockOffsetMs = requestedOffset(body, state.clockOffsetMs ?? 0, Date.now());
    } catch (err) {
      if (err instanceof ClockError) return c.json({ error: err.message }, 400);
      throw err;
    }
    stack.settle();
    stack.save();
    return c.json(clockJson(stack.now(), state.clockOffsetMs));
  });
  app.put("/_emulator/faults", async (c) => {
    const body = parseJson(await c.req.text());
    const parsed = faultOptionsSchema.safeParse(body);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
      return c.json({ error: `fault options: ${problems.join("; ")}` }, 400);
    }
    faults = parsed.data;
    faultRandom = seededRandom(faults.seed ?? 1);
    injected = 0;
    return c.json(body);
  });

  // Logging, the request's project, fault injection and lazy completion of due tasks, for every
  // API request.
  app.use("*", async (c, next) => {
    const url = new URL(c.req.url);
    const path = url.pathname + url.search;
    if (url.pathname.startsWith("/_emulator/")) return next();
    const entry: RequestLogEntry = { method: c.req.method, path, status: 0, at: new Date().toISOString() };
    log.push(entry);
    const project = await projectOfRequest(c.req.raw, contexts);
    if (project) entry.projectId = project.state.project.id;
    c.set("project", apps.get(project ?? ctx)!);
    if (faults.latencyMs) await new Promise((r) => setTimeout(r, faults.latencyMs));
    const exhausted = faults.limit !== undefined && injected >= faults.limit;
    const fault = exhausted ? ({ kind: "none" } as const) : decideFault(faults, faultRandom, c.req.method, url.pathname);
    if (fault.kind !== "none") injected++;
    if (fault.kind !== "none") entry.fault = fault.kind;
    if (fault.kind === "reset") {
      c.env.incoming.socket.destroy();
      return new Response(null, { status: 500 });
    }
    if (fault.kind === "429") {
      entry.status = 429;
      return faultResponse(ctx, url.pathname, 429, "Too Many Requests", { "Retry-After": String(fault.retryAfter) });
    }
    if (fault.kind === "5xx") {
      entry.status = fault.status;
      return faultResponse(ctx, url.pathname, fault.status, "Internal Server Error");
    }
    // A task or job that completes here is saved even when only reads follow, so what it
    // generated (e.g. a sink token) survives a restart unchanged.
    const settled = stack.settle();
    await next();
    entry.status = c.res.status;
    if (settled || isWriteMethod(c.req.method)) stack.save();
    if (fault.kind === "lost") {
      // Processed and saved; the answer is dropped with the connection.
      entry.droppedStatus = entry.status;
      entry.status = 0;
      c.env.incoming.socket.destroy();
      return new Response(null, { status: 500 });
    }
  });

  // The stack's own service, then every other path in the request's project.
  app.route(MOUNTS.encryption, encryptionApp(ctx));
  app.all("*", (c) => c.var.project.fetch(c.req.raw, c.env));

  const server = await new Promise<Server>((resolve, reject) => {
    // @hono/node-server serves HTTP/1.1 with node:http unless told otherwise.
    const s = serve({ fetch: app.fetch, port: opts.port ?? 0, hostname: opts.host ?? "127.0.0.1" }, () =>
      s instanceof Server ? resolve(s) : reject(new Error("emulator: the server is not an HTTP/1.1 server")),
    );
  });
  const address = listeningAddress(server);
  baseUrl = `http://${opts.host ?? "127.0.0.1"}:${address.port}`;

  const projects: EmulatorProject[] = contexts.map((c) => ({
    id: c.state.project.id,
    name: c.state.project.name,
    get masterToken() {
      return masterTokenOf(c.state) ?? "";
    },
    state: c.state,
    context: c,
  }));

  return {
    url: baseUrl,
    urls: urls(),
    port: address.port,
    state,
    context: ctx,
    projects,
    requests: () => [...log],
    clearRequests: () => {
      log.length = 0;
    },
    writes: () => log.filter((e) => isWriteMethod(e.method)),
    faultCounts: () => countFaults(log),
    setFaults(f) {
      faults = f;
      faultRandom = seededRandom(f.seed ?? 1);
      injected = 0;
    },
    // Job ids are the stack's (core/counters.ts): at most one project has the job.
    jobInputs: (jobId) => contexts.map((c) => jobInputs(c, jobId)).find((inputs) => inputs !== undefined),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections?.();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** The address a server listens on (a TCP port, not a pipe). */
function listeningAddress(server: Server): AddressInfo {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error(`emulator: the server listens on ${address ?? "nothing"}, not a TCP port`);
  return address;
}

// Injected faults answer in the error shape of the service the path belongs to, as a
// proxy in front of the real service would pass them on.
function faultResponse(ctx: EmulatorContext, pathname: string, status: number, message: string, headers: Record<string, string> = {}): Response {
  if (pathname.startsWith(`${MOUNTS.files}/`)) {
    // The object store answers S3's XML errors (InternalError; SlowDown when throttling).
    const code = status === 429 ? "SlowDown" : "InternalError";
    const text = status === 429 ? "Please reduce your request rate." : "We encountered an internal error. Please try again.";
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${text}</Message></Error>`;
    return new Response(xml, { status, headers: { "Content-Type": "application/xml", ...headers } });
  }
  const body = pathname.startsWith(`${MOUNTS.stream}/`)
    ? { statusCode: status, error: status === 429 ? "stream.api.tooManyRequests" : "stream.api.internalError", message }
    : pathname.startsWith(`${MOUNTS.encryption}/`) || pathname.startsWith(`${MOUNTS.scheduler}/`)
      ? apiErrorControlBody(status === 429 ? message : "Internal Server Error occurred.", status, exceptionId(ctx))
      : { error: message, code: status === 429 ? "tooManyRequests" : "internalError", status: "error" };
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}
