import { Hono } from "hono";
import type { EmulatorContext } from "./core/context";
import type { ServiceEnv } from "./core/http";
import { MOUNTS, routingPath } from "./core/mounts";
import { storageApp } from "./storage/routes";
import { importApp, objectStoreApp } from "./storage/uploads";
import { streamApp } from "./stream/routes";
import { ingestionApp } from "./stream/ingestion";
import { queueApp } from "./queue/routes";
import { schedulerApp } from "./scheduler/routes";
import { dataScienceApp, editorApp, notificationApp } from "./project-services/routes";

// One project's services, each on its mount, built on the project's own context: what a request
// of that project reaches (server.ts picks the project, core/dispatch.ts). The Encryption API is
// not here: it is the stack's (encryption/routes.ts).

export function projectApp(ctx: EmulatorContext): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>({ getPath: routingPath });
  app.route(MOUNTS.storage, storageApp(ctx));
  app.route(MOUNTS.import, importApp(ctx));
  app.route(MOUNTS.files, objectStoreApp(ctx));
  app.route(MOUNTS.stream, streamApp(ctx));
  app.route(MOUNTS.streamIn, ingestionApp(ctx));
  app.route(MOUNTS.queue, queueApp(ctx));
  app.route(MOUNTS.scheduler, schedulerApp(ctx));
  app.route(MOUNTS.notification, notificationApp(ctx));
  app.route(MOUNTS.dataScience, dataScienceApp(ctx));
  app.route(MOUNTS.editor, editorApp(ctx));
  return app;
}
