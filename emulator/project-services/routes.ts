import type { EmulatorContext } from "../core/context";
import { apiErrorControl, projectService, type Render } from "./service";
import { notificationRoutes } from "./notification";

// Services of a project besides Storage, Queue, Encryption, Scheduler and Stream: the
// Notification service (`notification`, project subscriptions: notification.ts), the sandboxes
// service's data apps (`data-science`) and the SQL editor (`editor`). A real stack lists them in
// the Storage index, and keboola-sdk-go's project cleaning and keboola-as-code's project snapshot
// read them (pkg/keboola/clean.go CleanProject: `GET project-subscriptions`, `GET apps`,
// `GET sql/sessions`; paths in pkg/keboola/api_endpoints.go). Data apps and the SQL editor are
// served as an empty project has them: their lists answer `[]`, and the emulator has nothing
// else of them, so any other request is the service's 404 for a route it does not have. The
// frame (authentication, errors) is service.ts.

const editorError: Render = (status, message) => ({ message, error: status === 401 ? "Unauthorized" : status === 404 ? "Not Found" : "Error" });

/** A service whose list routes answer `[]`. */
function emptyService(ctx: EmulatorContext, render: Render, lists: string[]) {
  return projectService(ctx, render, (app, authenticated) => {
    for (const path of lists) app.get(path, authenticated, (c) => c.json([]));
  });
}

export const notificationApp = (ctx: EmulatorContext) => projectService(ctx, apiErrorControl, (app, authenticated) => notificationRoutes(app, authenticated, ctx));
export const dataScienceApp = (ctx: EmulatorContext) => emptyService(ctx, apiErrorControl, ["/apps"]);
export const editorApp = (ctx: EmulatorContext) => emptyService(ctx, editorError, ["/sql/sessions"]);
