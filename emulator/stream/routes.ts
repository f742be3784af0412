import { Hono, type Context } from "hono";
import { basePath } from "hono/route";
import type { EmulatorContext } from "../core/context";
import type { ServiceEnv } from "../core/http";
import { aggregationSources } from "./aggregation";
import { applicationError, endpointNotFound, StreamError } from "./errors";
import { authenticate, decode, endpoint } from "./request";
import { streamPublicUrls } from "./public-urls";
import { jsonResponse } from "./respond";
import { NullSettingValue } from "./settings";
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
  rotateSourceSecret,
  switchSource,
  updateSource,
  updateSourceSettings,
} from "./sources";
import { sinkStatisticsClear, sinkStatisticsFiles, sinkStatisticsTotal, sourceStatisticsClear } from "./statistics";
import { getTask, registerTaskRunner, TaskLockError, taskView } from "./tasks";
import { testSource } from "./testendpoint";
import { listDeletedSinks, listDeletedSources, registerUndeleteTasks, undeleteSink, undeleteSource } from "./undelete";
import {
  listSinkVersions,
  listSourceVersions,
  registerVersionTasks,
  rollbackSinkVersion,
  rollbackSourceVersion,
  sinkVersionDetail,
  sourceVersionDetail,
} from "./versions";

// The Stream API, mounted at the path of `ctx.urls().stream` (a real stack serves it at
// `https://stream.<stack>`). Each resource path lists its methods, then answers any other method
// as Goa's mux does: 405 with the methods it allows, or the CORS preflight for OPTIONS. Unknown
// paths are `endpointNotFound`. Every error is thrown and rendered by the app's onError.

const BRANCH = "/v1/branches/:branchId";
const SOURCES = `${BRANCH}/sources`;
const SOURCE = `${SOURCES}/:sourceId`;
const SINKS = `${SOURCE}/sinks`;
const SINK = `${SINKS}/:sinkId`;

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

/** The answer to a method a known path does not have. */
const otherMethod = (allow: string) => (c: Context<ServiceEnv>) =>
  c.req.method === "OPTIONS" ? corsPreflight() : c.body(null, 405, { Allow: allow });

/** The router's answer for a path without an endpoint (the path below the API's mount). */
function notFoundEndpoint(c: Context<ServiceEnv>): never {
  throw endpointNotFound(new URL(c.req.url).pathname.slice(basePath(c).length) || "/");
}

/** `GET /v1/tasks/{taskId}` (the id has slashes): project scope, no branch. */
const getTaskEndpoint = (ctx: EmulatorContext) =>
  endpoint.createHandlers(
    decode(() => undefined),
    authenticate(ctx),
    (c) => {
      const path = new URL(c.req.url).pathname;
      const taskId = decodeURIComponent(path.slice(`${basePath(c)}/v1/tasks/`.length));
      const task = getTask(ctx, taskId);
      // The real service has no not-found mapping for tasks: an unknown id is an unexpected error.
      if (!task) throw applicationError(ctx);
      return jsonResponse(200, taskView(ctx, task));
    },
  );

export function streamApp(ctx: EmulatorContext): Hono<ServiceEnv> {
  registerSourceTasks();
  registerSinkTasks();
  registerVersionTasks();
  registerUndeleteTasks();
  registerTaskRunner(ctx);

  const api = new Hono<ServiceEnv>();

  // "/" redirects to "/v1" (the index).
  api.get("/", (c) => c.redirect(`${basePath(c)}/v1`, 301));
  api.get("/health-check", (c) => c.body("OK", 200, { "Content-Type": "text/plain" }));

  api
    .get("/v1", () => jsonResponse(200, { api: "stream", documentation: `${streamPublicUrls(ctx).api}/v1/documentation` }))
    .all(otherMethod("GET"));
  api
    .get(SOURCES, ...listSources(ctx))
    .post(...createSource(ctx))
    .all(otherMethod("GET, POST"));
  // Static segments before the parameter of the same place ("deleted" is no source id), as the
  // real router (httptreemux) prefers them.
  api.get(`${SOURCES}/deleted`, ...listDeletedSources(ctx)).all(otherMethod("GET"));
  api.get(`${BRANCH}/aggregation/sources`, ...aggregationSources(ctx)).all(otherMethod("GET"));
  api
    .get(SOURCE, ...getSource(ctx))
    .patch(...updateSource(ctx))
    .delete(...deleteSource(ctx))
    .all(otherMethod("GET, PATCH, DELETE"));
  api
    .get(`${SOURCE}/settings`, ...getSourceSettings(ctx))
    .patch(...updateSourceSettings(ctx))
    .all(otherMethod("GET, PATCH"));
  api.post(`${SOURCE}/test`, ...testSource(ctx)).all(otherMethod("POST"));
  api.post(`${SOURCE}/rotate-secret`, ...rotateSourceSecret(ctx)).all(otherMethod("POST"));
  api.put(`${SOURCE}/disable`, ...switchSource(ctx, false)).all(otherMethod("PUT"));
  api.put(`${SOURCE}/enable`, ...switchSource(ctx, true)).all(otherMethod("PUT"));
  api.put(`${SOURCE}/undelete`, ...undeleteSource(ctx)).all(otherMethod("PUT"));
  api.delete(`${SOURCE}/statistics/clear`, ...sourceStatisticsClear(ctx)).all(otherMethod("DELETE"));
  api.get(`${SOURCE}/versions`, ...listSourceVersions(ctx)).all(otherMethod("GET"));
  api.get(`${SOURCE}/versions/:versionNumber`, ...sourceVersionDetail(ctx)).all(otherMethod("GET"));
  api.put(`${SOURCE}/versions/:versionNumber/rollback`, ...rollbackSourceVersion(ctx)).all(otherMethod("PUT"));
  api
    .get(SINKS, ...listSinks(ctx))
    .post(...createSink(ctx))
    .all(otherMethod("GET, POST"));
  api.get(`${SINKS}/deleted`, ...listDeletedSinks(ctx)).all(otherMethod("GET"));
  api
    .get(SINK, ...getSink(ctx))
    .patch(...updateSink(ctx))
    .delete(...deleteSink(ctx))
    .all(otherMethod("GET, PATCH, DELETE"));
  api
    .get(`${SINK}/settings`, ...getSinkSettings(ctx))
    .patch(...updateSinkSettings(ctx))
    .all(otherMethod("GET, PATCH"));
  api.put(`${SINK}/disable`, ...switchSink(ctx, false)).all(otherMethod("PUT"));
  api.put(`${SINK}/enable`, ...switchSink(ctx, true)).all(otherMethod("PUT"));
  api.put(`${SINK}/undelete`, ...undeleteSink(ctx)).all(otherMethod("PUT"));
  api.get(`${SINK}/statistics/total`, ...sinkStatisticsTotal(ctx)).all(otherMethod("GET"));
  api.get(`${SINK}/statistics/files`, ...sinkStatisticsFiles(ctx)).all(otherMethod("GET"));
  api.delete(`${SINK}/statistics/clear`, ...sinkStatisticsClear(ctx)).all(otherMethod("DELETE"));
  api.get(`${SINK}/versions`, ...listSinkVersions(ctx)).all(otherMethod("GET"));
  api.get(`${SINK}/versions/:versionNumber`, ...sinkVersionDetail(ctx)).all(otherMethod("GET"));
  api.put(`${SINK}/versions/:versionNumber/rollback`, ...rollbackSinkVersion(ctx)).all(otherMethod("PUT"));
  // The router's catch-all `/v1/tasks/*taskId` does not match an empty id: "/v1/tasks/" has no endpoint.
  api.all("/v1/tasks", notFoundEndpoint);
  api.all("/v1/tasks/", notFoundEndpoint);
  api.get("/v1/tasks/*", ...getTaskEndpoint(ctx));
  api.all("/v1/tasks/:taskId{.+}", otherMethod("GET"));

  api.all("*", notFoundEndpoint);

  api.onError((err) => {
    if (err instanceof StreamError) return err.response();
    // The real service panics on a `null` setting value and on a task lock held by a running
    // task of the same object (both are unexpected errors there).
    if (err instanceof NullSettingValue) return applicationError(ctx, "panicError").response();
    if (err instanceof TaskLockError) return applicationError(ctx).response();
    throw err;
  });
  return api;
}
