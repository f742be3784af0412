import type { Context } from "hono";
import type { EmulatorContext } from "../core/context";
import { authenticated, type StorageApp, type StorageEnv } from "./auth";
import { findComponent } from "./components";
import { errors } from "./errors";

// A component's detail, `GET /v2/storage/components/{id}` (and with a branch in the path). The
// components themselves (the catalog, the added ones, their records) are components.ts's; the
// route is apart from them because it needs the context and the Storage authentication, which
// components.ts (imported by the state and the context) must not import.

export function registerComponentRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);
  // One component's detail: the index record plus the keys only this endpoint has
  // (storage-api-php-client tests/Common/ComponentsTest.php testGetComponentDetail and
  // testPublicGetComponentDetail assert createConfigurationRowSchema, dataTypesConfiguration and
  // processorConfiguration, and that there is no `configurations`). Without the branch in the
  // path it needs no token (apiary.apib "Get component - without branch in URL"). The real
  // answer for an id the stack does not have is not in the public sources: the emulator answers
  // the Storage API's 404 of an unknown resource.
  const detail = (c: Context<StorageEnv>, componentId: string): Response => {
    const found = findComponent(ctx.state.storage, componentId);
    if (!found) throw errors.routeNotFound();
    const { uiOptions, configurationDescription, features, expiredOn, uri, documentationUrl, ...head } = found;
    return c.json({
      ...head,
      createConfigurationRowSchema: {},
      uiOptions,
      configurationDescription,
      features,
      expiredOn,
      uri,
      documentationUrl,
      dataTypesConfiguration: {},
      processorConfiguration: {},
    });
  };
  api.get("/components/:componentId", (c) => detail(c, c.req.param("componentId")));
  api.get("/branch/:branchId/components/:componentId", auth, (c) => detail(c, c.req.param("componentId")));
}
