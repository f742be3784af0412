import { readFileSync, writeFileSync, renameSync, existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { Server } from "node:http";
import { Hono } from "hono";
import { parseJson, type JsonValue } from "../keboola/json";
import { getPath } from "hono/utils/url";
import { serve } from "@hono/node-server";
import type { ServiceEnv } from "./core/http";
import { isWriteMethod, type Deferred, type EmulatorContext, type EmulatorOptions, type EmulatorState, type RequestLogEntry, type ServiceUrls } from "./core/context";
import { countFaults, decideFault, faultOptionsSchema, type FaultCounts, type FaultOptions } from "./core/faults";
import { seededRandom } from "./core/random";
import { limitedToken, masterToken, restoredTokens, tokenBySecret } from "./core/tokens";
import { initialStorageState } from "./storage/state";
import { DEFAULT_PROJECT_FEATURES } from "./storage/project-features";
import { initialStreamState } from "./stream/state";
import { initialQueueState } from "./queue/state";
import { storageApp } from "./storage/routes";
import { importApp, objectStoreApp } from "./storage/uploads";
import { streamApp } from "./stream/routes";
import { ingestionApp } from "./stream/ingestion";
import { queueApp } from "./queue/routes";
import { jobInputs } from "./queue/jobs";
import type { JobInputs } from "./queue/components";
import { encryptionApp } from "./encryption/routes";
import { initialEncryptionState } from "./encryption/state";
import { schedulerApp } from "./scheduler/routes";
import { dataScienceApp, editorApp, notificationApp } from "./project-services/routes";
import { initialSchedulerState } from "./scheduler/state";
import { ClockError, clockJson, requestedOffset } from "./core/clock";
import { apiErrorControlBody } from "./core/api-error-control";
import { exceptionId } from "./storage/errors";

export interface Emulator {
  /** Base URL (the Storage API host); other services are listed in its index. */
  readonly url: string;
  readonly urls: ServiceUrls;
  readonly port: number;
  readonly state: EmulatorState;
  readonly context: EmulatorContext;
  /** Every API request handled so far (method, path, status), oldest first. */
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

/**
 * Where each service is mounted on the emulator's one host (a real stack gives most of them a
 * host of their own; the Storage index lists their URLs).
 */
const MOUNTS = {
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

/**
 * The path a request is routed by. Hono matches paths strictly, and its `strict: false` applies
 * to a whole app only, so the exceptions are made here: the Storage API takes each of its paths
 * with or without one trailing slash, and every other service takes its root at `<mount>/` as at
 * `<mount>` (on a host of its own, both are `/`). Handlers still see the URL as it was sent.
 */
function routingPath(request: Request): string {
  const path = getPath(request);
  if (path.length < 2 || !path.endsWith("/")) return path;
  const trimmed = path.slice(0, -1);
  const storage = trimmed === MOUNTS.storage || trimmed.startsWith(`${MOUNTS.storage}/`);
  return storage || Object.values<string>(MOUNTS).includes(trimmed) ? trimmed : path;
}

export function initialState(options: EmulatorOptions, now: string): EmulatorState {
  const tokens = [masterToken(options.token, now)];
  if (options.limitedToken) tokens.push(limitedToken(options.limitedToken, now));
  return {
    version: 1,
    project: { id: options.projectId ?? 4242, name: "Emulated Project", defaultBranchId: 101, features: [...(options.projectFeatures ?? DEFAULT_PROJECT_FEATURES)] },
    tokens,
    deferred: [],
    counters: {},
    storage: initialStorageState(),
    stream: initialStreamState(),
    queue: initialQueueState(),
    encryption: initialEncryptionState(),
    scheduler: initialSchedulerState(),
  };
}

/**
 * A state file as save() writes it (the EmulatorState as JSON); one from before the Encryption
 * or the Scheduler API has no part for it.
 */
type SavedState = Omit<EmulatorState, "encryption" | "scheduler"> & Partial<Pick<EmulatorState, "encryption" | "scheduler">>;

function loadState(options: EmulatorOptions): EmulatorState {
  const fresh = initialState(options, new Date().toISOString());
  if (!options.stateFile || !existsSync(options.stateFile)) return fresh;
  // An assertion, and the right tool here: the file is the emulator's own save() output (its
  // state, not a user's input), which it reads back as it wrote it. Checking it would take a
  // schema of every service's state, kept in step with the types it repeats, for files that
  // only a hand edit can break.
  const saved = JSON.parse(readFileSync(options.stateFile, "utf8")) as SavedState;
  // Tokens come from the command line, not the file, so a restart with a new token works (the
  // tokens created through the API are kept, core/tokens.ts restoredTokens); so do
  // project features when given. A file from before the Encryption API gets a key now.
  const project = options.projectFeatures ? { ...saved.project, features: [...options.projectFeatures] } : saved.project;
  return { ...saved, project, tokens: restoredTokens(fresh.tokens, saved.tokens), encryption: saved.encryption ?? fresh.encryption, scheduler: saved.scheduler ?? fresh.scheduler };
}

export async function startEmulator(options: EmulatorOptions): Promise<Emulator> {
  const opts = { taskDurationMs: 300, ...options };
  const state = loadState(opts);
  const handlers = new Map<string, (args: JsonValue, d: Deferred) => void>();
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

  const ctx: EmulatorContext = {
    state,
    options: opts,
    baseUrl: () => baseUrl,
    urls,
    // Seeded for repeatable runs; a restart from a state file continues with another sequence, so
    // secrets generated after the restart never repeat those generated before it.
    random: seededRandom((opts.seed ?? 7) + Object.values(state.counters).reduce((a, b) => a + b, 0)),
    now: () => Date.now() + (state.clockOffsetMs ?? 0),
    nextId(counter, start = 1) {
      const next = (state.counters[counter] ?? start - 1) + 1;
      state.counters[counter] = next;
      return next;
    },
    defer(op, args, delayMs = opts.taskDurationMs) {
      const d: Deferred = { id: `${op}:${ctx.nextId("deferred")}`, at: ctx.now() + delayMs, op, args };
      state.deferred.push(d);
      return d;
    },
    onDeferred(op, handler) {
      handlers.set(op, handler);
    },
    settle() {
      const now = ctx.now();
      let ran = false;
      for (;;) {
        const due = state.deferred.filter((d) => d.at <= now).sort((a, b) => a.at - b.at)[0];
        if (!due) return ran;
        ran = true;
        state.deferred.splice(state.deferred.indexOf(due), 1);
        const handler = handlers.get(due.op);
        if (!handler) throw new Error(`emulator: no handler for deferred operation ${due.op}`);
        handler(due.args, due);
      }
    },
    tokenOf(c) {
      const header = c.req.header("X-StorageApi-Token");
      // An expired token no longer authenticates (core/tokens.ts isExpired).
      return header ? tokenBySecret(state.tokens, header, ctx.now()) : undefined;
    },
    save() {
      if (!opts.stateFile) return;
      const tmp = `${opts.stateFile}.tmp`;
      writeFileSync(tmp, JSON.stringify(state));
      renameSync(tmp, opts.stateFile);
    },
    faults: () => faults,
  };

  const app = new Hono<ServiceEnv>({ getPath: routingPath });

  // Control endpoints for tests and demos: never faulted, never logged.
  app.get("/_emulator/requests", (c) => c.json(log));
  app.delete("/_emulator/requests", (c) => {
    log.length = 0;
    return c.body(null, 204);
  });
  app.get("/_emulator/state", (c) => {
    if (ctx.settle()) ctx.save();
    return c.json(state);
  });
  // The emulated clock (core/clock.ts): moving it forward completes what became due meanwhile
  // (tasks, jobs, schedules' fires) before answering.
  app.get("/_emulator/clock", (c) => c.json(clockJson(ctx.now(), state.clockOffsetMs ?? 0)));
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
    ctx.settle();
    ctx.save();
    return c.json(clockJson(ctx.now(), state.clockOffsetMs));
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

  // Logging, fault injection and lazy completion of due tasks, for every API request.
  app.use("*", async (c, next) => {
    const url = new URL(c.req.url);
    const path = url.pathname + url.search;
    if (url.pathname.startsWith("/_emulator/")) return next();
    const entry: RequestLogEntry = { method: c.req.method, path, status: 0, at: new Date().toISOString() };
    log.push(entry);
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
    const settled = ctx.settle();
    await next();
    entry.status = c.res.status;
    if (settled || isWriteMethod(c.req.method)) ctx.save();
    if (fault.kind === "lost") {
      // Processed and saved; the answer is dropped with the connection.
      entry.droppedStatus = entry.status;
      entry.status = 0;
      c.env.incoming.socket.destroy();
      return new Response(null, { status: 500 });
    }
  });

  app.route(MOUNTS.storage, storageApp(ctx));
  app.route(MOUNTS.import, importApp(ctx));
  app.route(MOUNTS.files, objectStoreApp(ctx));
  app.route(MOUNTS.stream, streamApp(ctx));
  app.route(MOUNTS.streamIn, ingestionApp(ctx));
  app.route(MOUNTS.queue, queueApp(ctx));
  app.route(MOUNTS.encryption, encryptionApp(ctx));
  app.route(MOUNTS.scheduler, schedulerApp(ctx));
  app.route(MOUNTS.notification, notificationApp(ctx));
  app.route(MOUNTS.dataScience, dataScienceApp(ctx));
  app.route(MOUNTS.editor, editorApp(ctx));

  const server = await new Promise<Server>((resolve, reject) => {
    // @hono/node-server serves HTTP/1.1 with node:http unless told otherwise.
    const s = serve({ fetch: app.fetch, port: opts.port ?? 0, hostname: opts.host ?? "127.0.0.1" }, () =>
      s instanceof Server ? resolve(s) : reject(new Error("emulator: the server is not an HTTP/1.1 server")),
    );
  });
  const address = listeningAddress(server);
  baseUrl = `http://${opts.host ?? "127.0.0.1"}:${address.port}`;

  return {
    url: baseUrl,
    urls: urls(),
    port: address.port,
    state,
    context: ctx,
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
    jobInputs: (jobId) => jobInputs(ctx, jobId),
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
