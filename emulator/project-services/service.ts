import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import type { MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { EmulatorContext } from "../core/context";
import type { ServiceEnv } from "../core/http";
import { apiErrorControlBody, noRouteMessage } from "../core/api-error-control";
import { exceptionId } from "../storage/errors";

// The frame shared by the project services of project-services/: authentication as
// keboola/api-bundle does it for the Queue (queue/errors.ts), the service's 404 for a route it
// does not have, and errors rendered in the shape the service's error type in keboola-sdk-go
// decodes (pkg/keboola/notification_error.go and the sandboxes service: `{error, code,
// exceptionId}` of api-error-control; editor_error.go: `{message, error}`).

export type Render = (status: ContentfulStatusCode, message: string, ctx: EmulatorContext) => Record<string, unknown>;

export const apiErrorControl: Render = (status, message, ctx) => ({ ...apiErrorControlBody(message, status, exceptionId(ctx)) });

export class ServiceError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
  ) {
    super(message);
  }
}

/** Adds a service's routes; `authenticated` lets any valid Storage token of the project through. */
export type RegisterRoutes = (app: Hono<ServiceEnv>, authenticated: MiddlewareHandler<ServiceEnv>) => void;

/** A service of the project: its own routes, then the 404 of a route it does not have. */
export function projectService(ctx: EmulatorContext, render: Render, register: RegisterRoutes): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>();
  const authenticated = createMiddleware<ServiceEnv>(async (c, next) => {
    if (!c.req.header("X-StorageApi-Token")) throw new ServiceError(401, "Authentication token is missing");
    if (!ctx.tokenOf(c)) throw new ServiceError(401, "Invalid access token");
    await next();
  });
  register(app, authenticated);
  app.all("*", () => {
    throw new ServiceError(404, "");
  });
  app.onError((err, c) => {
    if (!(err instanceof ServiceError)) throw err;
    const message = err.message || noRouteMessage(c.req.method, c.req.url);
    return c.json(render(err.status, message, ctx), err.status);
  });
  return app;
}
