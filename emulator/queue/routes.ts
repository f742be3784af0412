import { Hono, type Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { EmulatorContext } from "../core/context";
import type { NodeBindings } from "../core/http";
import type { TokenRecord } from "../core/tokens";
import { list, readQuery, setFormValue, str } from "../storage/body";
import { noRouteMessage } from "../core/api-error-control";
import { QueueHttpError, queueErrorResponse } from "./errors";
import { createQueueJob, queueJobJson, registerQueueJobHandlers } from "./jobs";
import { isRecord } from "../../keboola/json";
import { initialQueueState } from "./state";

// The Job Queue API, mounted at `<base>/queue` (a real stack serves it at `https://queue.<stack>`):
// `POST /jobs` (201 with the created job), `GET /jobs/{id}`, and job lists at `GET /jobs` and
// `GET /search/jobs` (filters `component`, `config`, `branchId`, `status`, `id`, `runId`,
// `parentRunId`; `limit`, `offset`; newest first); the `X-KBC-RunId` header of `POST /jobs`
// makes the created job a child of that run. Every endpoint needs a token (the `authenticated` middleware sets
// `c.var.token`); errors are rendered by the app's error handler, in the api-error-control shape.

export interface QueueEnv {
  Bindings: NodeBindings;
  Variables: { token: TokenRecord };
}

export function queueApp(ctx: EmulatorContext): Hono<QueueEnv> {
  const fresh = initialQueueState();
  ctx.state.queue.jobs ??= fresh.jobs;
  ctx.state.queue.resolved ??= fresh.resolved;
  registerQueueJobHandlers(ctx);

  const api = new Hono<QueueEnv>();

  // keboola/api-bundle's authentication (see errors.ts).
  const authenticated = createMiddleware<QueueEnv>(async (c, next) => {
    if (!c.req.header("X-StorageApi-Token")) throw new QueueHttpError(401, "Authentication token is missing");
    const token = ctx.tokenOf(c);
    if (!token) throw new QueueHttpError(401, "Invalid access token");
    c.set("token", token);
    await next();
  });

  api.post("/jobs", authenticated, async (c) => {
    let body: unknown;
    const type = (c.req.header("Content-Type") ?? "").toLowerCase();
    const text = await c.req.text();
    if (type.includes("application/x-www-form-urlencoded")) {
      const form: Record<string, unknown> = {};
      for (const [k, v] of new URLSearchParams(text).entries()) setFormValue(form, k, v);
      body = form;
    } else {
      try {
        body = text.trim() ? JSON.parse(text) : {};
      } catch {
        throw new QueueHttpError(400, "Request body is not a valid JSON.");
      }
    }
    if (!isRecord(body)) throw new QueueHttpError(400, "Request body must be a JSON object.");
    const parentRunId = c.req.header("X-KBC-RunId")?.trim() || undefined;
    const job = createQueueJob(ctx, c.var.token, body, parentRunId);
    return c.json(queueJobJson(ctx, job), 201);
  });

  api.get("/jobs/:jobId", authenticated, (c) => {
    const id = c.req.param("jobId");
    const job = ctx.state.queue.jobs[id];
    if (!job) throw new QueueHttpError(404, `Job "${id}" not found`);
    return c.json(queueJobJson(ctx, job));
  });

  const listJobs = (c: Context<QueueEnv>): Response => {
    const q = readQuery(c);
    const filter = (...keys: string[]): string[] => keys.flatMap((k) => list(q[k]) ?? []);
    const components = filter("component", "componentId");
    const configs = filter("config", "configId");
    const branches = filter("branchId");
    const statuses = filter("status");
    const ids = filter("id");
    const parents = filter("parentRunId");
    const runIds = filter("runId");
    const limit = Math.max(1, Math.min(500, Number(str(q.limit) ?? 100) || 100));
    const offset = Math.max(0, Number(str(q.offset) ?? 0) || 0);
    const jobs = Object.values(ctx.state.queue.jobs)
      .filter(
        (j) =>
          (!components.length || components.includes(j.component)) &&
          (!configs.length || (j.config !== null && configs.includes(j.config))) &&
          (!branches.length || branches.includes(j.branchId)) &&
          (!statuses.length || statuses.includes(j.status)) &&
          (!ids.length || ids.includes(j.id)) &&
          (!parents.length || parents.includes(j.parentRunId ?? "")) &&
          (!runIds.length || runIds.includes(j.runId)),
      )
      .sort((a, b) => Number(b.id) - Number(a.id))
      .slice(offset, offset + limit);
    return c.json(jobs.map((j) => queueJobJson(ctx, j)));
  };
  api.get("/jobs", authenticated, listJobs);
  api.get("/search/jobs", authenticated, listJobs);

  // Symfony's router, before authentication: a known path with another method is 405 with the
  // methods it allows, any other path 404 (RouterListener's messages, rendered by
  // api-error-control like every error: see core/api-error-control.ts). The paths and their
  // methods are the Job Queue API's (job-queue-api 1.3.8: `/jobs` GET and POST, `/jobs/{jobId}`
  // GET, `/search/jobs` GET; copy in api-evangelist/keboola openapi/keboola-queue-api-openapi.yml).
  const otherMethod = (allowed: string[]) => (c: Context<QueueEnv>) => {
    throw new QueueHttpError(405, noRouteMessage(c.req.method, c.req.url, allowed));
  };
  api.all("/jobs", otherMethod(["GET", "POST"]));
  api.all("/jobs/:jobId", otherMethod(["GET"]));
  api.all("/search/jobs", otherMethod(["GET"]));
  api.all("*", (c) => {
    throw new QueueHttpError(404, noRouteMessage(c.req.method, c.req.url));
  });

  api.onError((err, c) => {
    if (err instanceof QueueHttpError) return queueErrorResponse(c, ctx, err);
    throw err;
  });
  return api;
}
