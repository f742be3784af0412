import { Hono } from "hono";
import { createMiddleware } from "hono/factory";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { EmulatorContext } from "../core/context";
import type { ServiceEnv } from "../core/http";
import { apiErrorControlBody, noRouteMessage } from "../core/api-error-control";
import { exceptionId } from "../storage/errors";

// Services of a project that the emulator serves as an empty project has them: the Notification
// service (`notification`), the sandboxes service's data apps (`data-science`) and the SQL editor
// (`editor`). A real stack lists them in the Storage index, and keboola-sdk-go's project cleaning
// and keboola-as-code's project snapshot read them (pkg/keboola/clean.go CleanProject:
// `GET project-subscriptions`, `GET apps`, `GET sql/sessions`; paths in
// pkg/keboola/api_endpoints.go). Their lists answer `[]`; the emulator has nothing else of them,
// so any other request is the service's 404 for a route it does not have. Authentication as
// keboola/api-bundle does it for the Queue (queue/errors.ts); errors in the shape each service's
// error type in keboola-sdk-go decodes: notification_error.go and the sandboxes service
// `{error, code, exceptionId}` (api-error-control), editor_error.go `{message, error}`.

type Render = (status: ContentfulStatusCode, message: string, ctx: EmulatorContext) => Record<string, unknown>;

const apiErrorControl: Render = (status, message, ctx) => ({ ...apiErrorControlBody(message, status, exceptionId(ctx)) });
const editorError: Render = (status, message) => ({ message, error: status === 401 ? "Unauthorized" : status === 404 ? "Not Found" : "Error" });

class ServiceError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
  ) {
    super(message);
  }
}

/** One empty service: its list routes answer `[]`. */
function emptyService(ctx: EmulatorContext, render: Render, lists: string[]): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>();
  const authenticated = createMiddleware<ServiceEnv>(async (c, next) => {
    if (!c.req.header("X-StorageApi-Token")) throw new ServiceError(401, "Authentication token is missing");
    if (!ctx.tokenOf(c)) throw new ServiceError(401, "Invalid access token");
    await next();
  });
  for (const path of lists) app.get(path, authenticated, (c) => c.json([]));
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

export const notificationApp = (ctx: EmulatorContext) => emptyService(ctx, apiErrorControl, ["/project-subscriptions"]);
export const dataScienceApp = (ctx: EmulatorContext) => emptyService(ctx, apiErrorControl, ["/apps"]);
export const editorApp = (ctx: EmulatorContext) => emptyService(ctx, editorError, ["/sql/sessions"]);
