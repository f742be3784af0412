import type { Context, Hono } from "hono";
import type { EmulatorContext } from "../core/context";
import { authenticate } from "./auth";
import { apiError, applicationError, GoaErrors } from "./errors";
import { handle, requireToken } from "./request";
import { jsonResponse } from "./respond";
import {
  createSink,
  deleteSink,
  getSink,
  getSinkSettings,
  listSinks,
  registerSinkTasks,
  switchSink,
  updateSink,
  updateSinkSettings,
} from "./sinks";
import {
  createSource,
  deleteSource,
  getSource,
  getSourceSettings,
  listSources,
  registerSourceTasks,
  switchSource,
  updateSource,
  rotateSourceSecret,
  updateSourceSettings,
} from "./sources";
import { getTask, registerTaskRunner, taskView } from "./tasks";
import { testSource } from "./testendpoint";

// The Stream API under `ctx.urls().stream` (= <base>/stream) and the ingestion endpoint under
// `ctx.urls().streamIn` (= <base>/stream-in), both served by the emulator's single host.

const STREAM = "/stream";

type Handler = (ctx: EmulatorContext, c: Context) => Promise<Response> | Response;

interface Route {
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  path: string;
  handler: Handler;
}

const SOURCE = "/v1/branches/:branchId/sources/:sourceId";
const SINK = `${SOURCE}/sinks/:sinkId`;

const ROUTES: Route[] = [
  { method: "GET", path: "/v1", handler: (ctx) => index(ctx) },
  { method: "GET", path: "/v1/branches/:branchId/sources", handler: listSources },
  { method: "POST", path: "/v1/branches/:branchId/sources", handler: createSource },
  { method: "GET", path: SOURCE, handler: getSource },
  { method: "PATCH", path: SOURCE, handler: updateSource },
  { method: "DELETE", path: SOURCE, handler: deleteSource },
  { method: "GET", path: `${SOURCE}/settings`, handler: getSourceSettings },
  { method: "PATCH", path: `${SOURCE}/settings`, handler: updateSourceSettings },
  { method: "POST", path: `${SOURCE}/test`, handler: testSource },
  { method: "POST", path: `${SOURCE}/rotate-secret`, handler: rotateSourceSecret },
  { method: "PUT", path: `${SOURCE}/disable`, handler: (ctx, c) => switchSource(ctx, c, false) },
  { method: "PUT", path: `${SOURCE}/enable`, handler: (ctx, c) => switchSource(ctx, c, true) },
  { method: "GET", path: `${SOURCE}/sinks`, handler: listSinks },
  { method: "POST", path: `${SOURCE}/sinks`, handler: createSink },
  { method: "GET", path: SINK, handler: getSink },
  { method: "PATCH", path: SINK, handler: updateSink },
  { method: "DELETE", path: SINK, handler: deleteSink },
  { method: "GET", path: `${SINK}/settings`, handler: getSinkSettings },
  { method: "PATCH", path: `${SINK}/settings`, handler: updateSinkSettings },
  { method: "PUT", path: `${SINK}/disable`, handler: (ctx, c) => switchSink(ctx, c, false) },
  { method: "PUT", path: `${SINK}/enable`, handler: (ctx, c) => switchSink(ctx, c, true) },
];

function index(ctx: EmulatorContext): Response {
  return jsonResponse(200, { api: "stream", documentation: `${ctx.urls().stream}/v1/documentation` });
}

function getTaskHandler(ctx: EmulatorContext, c: Context): Promise<Response> {
  return handle(ctx, () => {
    // Project scope only: the token is verified, there is no branch.
    authenticate(ctx, requireToken(c, new GoaErrors()));
    const path = new URL(c.req.url).pathname;
    const taskId = decodeURIComponent(path.slice(`${STREAM}/v1/tasks/`.length));
    const task = getTask(ctx, taskId);
    // The real service has no not-found mapping for tasks: an unknown id is an unexpected error.
    if (!task) throw applicationError(ctx);
    return jsonResponse(200, taskView(ctx, task));
  });
}

/** A regular expression for a route path with :params. */
function pattern(path: string): RegExp {
  return new RegExp("^" + path.replace(/:[a-zA-Z]+/g, "[^/]+") + "$");
}

function notFoundOrNotAllowed(c: Context): Response {
  const path = new URL(c.req.url).pathname.slice(STREAM.length) || "/";
  const allowed = ROUTES.filter((r) => pattern(r.path).test(path)).map((r) => r.method);
  if (path.startsWith("/v1/tasks/")) allowed.push("GET");
  if (allowed.length > 0) {
    if (c.req.method === "OPTIONS") return corsPreflight();
    return new Response(null, { status: 405, headers: { Allow: [...new Set(allowed)].join(", ") } });
  }
  return apiError(404, "endpointNotFound", `no endpoint found for path "${path}"`).response();
}

function corsPreflight(): Response {
  return new Response(null, {
    status: 200,
    headers: {
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": "GET, POST, PATCH, DELETE",
      "Access-Control-Allow-Headers": "Content-Type, X-StorageApi-Token, X-KBC-ProjectId",
    },
  });
}

export function registerStreamRoutes(app: Hono, ctx: EmulatorContext): void {
  registerSourceTasks();
  registerSinkTasks();
  registerTaskRunner(ctx);

  // "/" redirects to "/v1" (the index).
  app.get(STREAM, (c) => c.redirect(`${STREAM}/v1`, 301));
  app.get(`${STREAM}/`, (c) => c.redirect(`${STREAM}/v1`, 301));
  app.get(`${STREAM}/health-check`, () => new Response("OK", { headers: { "Content-Type": "text/plain" } }));

  for (const route of ROUTES) {
    app.on(route.method, STREAM + route.path, (c) => route.handler(ctx, c));
  }
  app.get(`${STREAM}/v1/tasks/*`, (c) => getTaskHandler(ctx, c));
  app.all(`${STREAM}/*`, (c) => notFoundOrNotAllowed(c));

}
