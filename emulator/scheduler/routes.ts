import { Hono, type Context } from "hono";
import { z } from "zod";
import { createMiddleware } from "hono/factory";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type JsonObject, type JsonValue, isJsonObject, parseJson } from "../../keboola/json";
import type { EmulatorContext } from "../core/context";
import type { NodeBindings } from "../core/http";
import type { TokenRecord } from "../core/tokens";
import { apiErrorControlBody, noRouteMessage } from "../core/api-error-control";
import { exceptionId } from "../storage/errors";
import { findConfig } from "../storage/configurations";
import { createQueueJob } from "../queue/jobs";
import { QueueHttpError } from "../queue/errors";
import { nextRun } from "../../keboola/cron";
import { SCHEDULER_COMPONENT_ID, schedulerConfigurationSchema, type ScheduleJson } from "../../keboola/scheduler";
import { initialSchedulerState, type ScheduleRecord } from "./state";

// The Scheduler API, mounted at `<base>/scheduler` (a real stack serves it at
// `https://scheduler.<stack>`, listed as service `scheduler` in the Storage index). Endpoints as
// keboola/keboola-sdk-go pkg/keboola/scheduler_api.go and api_endpoints.go call them:
//   POST /schedules {configurationId, configurationVersionId?}  activate a keboola.scheduler configuration
//   GET /schedules, GET|DELETE /schedules/{scheduleId}
//   DELETE /configurations/{configurationId}                    every schedule of that configuration
//   POST /schedules/{scheduleId}/refreshToken
// Statuses and bodies as the Scheduler's OpenAPI spec gives them (swaggerhub odinuv/scheduler/1.0.0,
// which the SDK cites; a copy: api-evangelist/keboola openapi/keboola-schedules-api-openapi.yml):
// activation answers 200 with the schedule, refreshToken 202, the deletes 204, `GET /schedules`
// filters by the target's `componentId` and `configurationId`, `executionTime` is an ISO time
// ("2019-06-21T09:12:33.001Z"), errors are `{error, code, status: "error", exceptionId, context}`.
// The schedule JSON is the SDK's `Schedule` (pkg/keboola/scheduler_model.go): `{id, tokenId,
// configurationId, configurationVersionId, schedule: {cronTab, timezone, state}, target:
// {componentId, configurationId, configurationRowIds, mode, tag}, executions: [{jobId,
// executionTime}]}`; a fresh activation has `configurationVersionId` "1" and `executions: []`
// (pkg/keboola/scheduler_api_test.go). Errors are the api-error-control body the SDK's
// `SchedulerError` decodes (`{error, code, exceptionId}`, pkg/keboola/scheduler_error.go).
//
// Branches: the Scheduler API has none. Activation names a configuration only (the SDK's body above;
// the OpenAPI spec has no branch parameter) and keboola-as-code activates schedules for the
// scheduler configurations of the default branch only (internal/pkg/mapper/scheduler/remote.go
// isSchedulerConfigFromMainBranch), so the configuration is read in the default branch: one that
// only a development branch has is not found, one both have is activated as production has it,
// and a schedule's jobs run in the default branch.
//
// Not recorded in any public source, so chosen here and kept consistent:
// - Activating needs a master token (the Scheduler creates a token for the schedule's jobs):
//   any other token gets 403. Missing or invalid tokens get keboola/api-bundle's 401s, as the Queue.
// - Activating a configuration that already has a schedule replaces it (keboola-as-code activates
//   on every save of a scheduler configuration, internal/pkg/mapper/scheduler/remote_activate.go,
//   and its SDK test lists one schedule after one activation, so saves cannot pile up schedules).
// - A configuration that is missing answers 404; one whose content is not a valid schedule 400,
//   with the first reason (keboola/scheduler.ts's schema, with the cron rules of keboola/cron.ts).
//
// Firing (see also core/clock.ts): an enabled schedule fires at the times of its cron in its
// timezone, by the emulator's clock. Each fire starts the target's job in the Queue (mode
// `run`, the target's rows and variable values) with the schedule's token and records it in
// `executions`, newest first. The real Scheduler checks every minute which schedules are due;
// when the emulated clock jumps over several fire times at once (e.g. `{"advance": "72h"}` over a
// daily cron), the schedule fires ONCE for the jump, at the emulated time after it, not once per
// missed time: a jump stands for one tick, so advancing 24h runs a daily schedule exactly once.
// A target that can no longer run (its configuration deleted or disabled) starts no job.

export interface SchedulerEnv {
  Bindings: NodeBindings;
  Variables: { token: TokenRecord };
}

const FIRE_OP = "scheduler.fire";

class SchedulerHttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
  ) {
    super(message);
  }
}

/** What a fire remembers (the deferred task's arguments). */
const fireArgs = z.object({ scheduleId: z.string() });
const idString = (v: unknown): string | undefined =>
  (typeof v === "string" && v !== "") || (typeof v === "number" && Number.isInteger(v)) ? String(v) : undefined;

/** A scheduler configuration's content as a schedule, or 400 with the first reason it is not one. */
function readScheduleConfiguration(content: JsonObject): Pick<ScheduleRecord, "schedule" | "target"> {
  const parsed = schedulerConfigurationSchema.safeParse(content);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? `"${issue.path.join(".")}"` : "the configuration";
    throw new SchedulerHttpError(400, `Invalid configuration: ${where}: ${issue.message}`);
  }
  const { schedule, target } = parsed.data;
  const out: Pick<ScheduleRecord, "schedule" | "target"> = {
    schedule: { cronTab: schedule.cronTab, timezone: schedule.timezone, state: schedule.state },
    target: { componentId: target.componentId, configurationId: target.configurationId, configurationRowIds: target.configurationRowIds, mode: target.mode, tag: target.tag ?? "" },
  };
  if (target.variableValuesId) out.target.variableValuesId = target.variableValuesId;
  if (target.variableValuesData) out.target.variableValuesData = target.variableValuesData;
  return out;
}

export function scheduleJson(s: ScheduleRecord): ScheduleJson {
  return {
    id: s.id,
    tokenId: s.tokenId,
    configurationId: s.configurationId,
    configurationVersionId: s.configurationVersionId,
    schedule: s.schedule,
    target: s.target,
    executions: s.executions,
  };
}

/** The token a schedule's jobs run with (never usable on the API: its secret is not kept). */
function scheduleToken(s: ScheduleRecord): TokenRecord {
  return {
    id: s.tokenId,
    token: "",
    description: s.tokenDescription,
    isMasterToken: true,
    canManageBuckets: true,
    canManageTokens: false,
    canReadAllFileUploads: true,
    created: "",
  };
}

/** Queues the next fire of an enabled schedule, after the emulated time it was handled until. */
function planNextFire(ctx: EmulatorContext, s: ScheduleRecord): void {
  if (s.schedule.state !== "enabled") return;
  const next = nextRun(s.schedule.cronTab, s.schedule.timezone, new Date(s.handledUntilMs));
  if (next) ctx.defer(FIRE_OP, { scheduleId: s.id } satisfies z.input<typeof fireArgs>, Math.max(0, next.getTime() - ctx.now()));
}

function fire(ctx: EmulatorContext, s: ScheduleRecord): void {
  const now = ctx.now();
  s.handledUntilMs = now;
  try {
    const job = createQueueJob(ctx, scheduleToken(s), {
      component: s.target.componentId,
      config: s.target.configurationId,
      mode: s.target.mode,
      configRowIds: s.target.configurationRowIds,
      ...(s.target.tag ? { tag: s.target.tag } : {}),
      ...(s.target.variableValuesId ? { variableValuesId: s.target.variableValuesId } : {}),
      ...(s.target.variableValuesData ? { variableValuesData: s.target.variableValuesData } : {}),
    });
    s.executions.unshift({ jobId: job.id, executionTime: new Date(now).toISOString() });
  } catch (err) {
    // The target cannot run now (deleted, disabled): the Scheduler logs it and starts nothing.
    if (!(err instanceof QueueHttpError)) throw err;
  }
  planNextFire(ctx, s);
}

export function schedulerApp(ctx: EmulatorContext): Hono<SchedulerEnv> {
  ctx.state.scheduler ??= initialSchedulerState();
  const schedules = () => ctx.state.scheduler.schedules;

  ctx.onDeferred(FIRE_OP, (args) => {
    const s = schedules()[fireArgs.parse(args).scheduleId];
    if (s && s.schedule.state === "enabled") fire(ctx, s);
  });

  const api = new Hono<SchedulerEnv>();

  const authenticated = createMiddleware<SchedulerEnv>(async (c, next) => {
    if (!c.req.header("X-StorageApi-Token")) throw new SchedulerHttpError(401, "Authentication token is missing");
    const token = ctx.tokenOf(c);
    if (!token) throw new SchedulerHttpError(401, "Invalid access token");
    c.set("token", token);
    await next();
  });
  const master = (c: Context<SchedulerEnv>): void => {
    if (!c.var.token.isMasterToken) throw new SchedulerHttpError(403, "Only a master token can manage schedules (the Scheduler creates a token for the schedule's jobs).");
  };
  const requireSchedule = (id: string): ScheduleRecord => {
    const s = schedules()[id];
    if (!s) throw new SchedulerHttpError(404, `Schedule "${id}" not found`);
    return s;
  };
  const removeOfConfiguration = (configurationId: string): void => {
    for (const s of Object.values(schedules())) if (s.configurationId === configurationId) delete schedules()[s.id];
  };

  api.post("/schedules", authenticated, async (c) => {
    master(c);
    let body: JsonValue;
    try {
      const text = await c.req.text();
      body = text.trim() ? parseJson(text) : {};
    } catch {
      throw new SchedulerHttpError(400, "Request body is not a valid JSON.");
    }
    if (!isJsonObject(body)) throw new SchedulerHttpError(400, "Request body must be a JSON object.");
    const configurationId = idString(body.configurationId);
    if (!configurationId) throw new SchedulerHttpError(400, '"configurationId" is required: the id of a keboola.scheduler configuration.');
    const branchId = ctx.state.project.defaultBranchId;
    const cfg = findConfig(ctx, branchId, SCHEDULER_COMPONENT_ID, configurationId);
    if (!cfg) throw new SchedulerHttpError(404, `Configuration "${configurationId}" of component "${SCHEDULER_COMPONENT_ID}" not found`);
    const versionId = idString(body.configurationVersionId) ?? String(cfg.version);
    const content = versionId === String(cfg.version) ? cfg.configuration : cfg.versions?.find((v) => String(v.version) === versionId)?.configuration;
    if (!content) throw new SchedulerHttpError(404, `Version "${versionId}" of configuration "${configurationId}" not found`);
    const parsed = readScheduleConfiguration(content);

    removeOfConfiguration(configurationId);
    const id = String(ctx.nextId("scheduler.schedule", 1));
    const s: ScheduleRecord = {
      id,
      tokenId: String(ctx.nextId("scheduler.token", 90001)),
      tokenDescription: `[_internal] Scheduler for ${configurationId}`,
      tokenCreated: new Date(ctx.now()).toISOString(),
      configurationId,
      configurationVersionId: versionId,
      ...parsed,
      executions: [],
      handledUntilMs: ctx.now(),
    };
    schedules()[id] = s;
    planNextFire(ctx, s);
    return c.json(scheduleJson(s), 200);
  });

  // Filters by the target (`componentId` and `configurationId`, meant to be used together).
  api.get("/schedules", authenticated, (c) => {
    const componentId = c.req.query("componentId");
    const configurationId = c.req.query("configurationId");
    const all = Object.values(schedules())
      .filter((s) => (!componentId || s.target.componentId === componentId) && (!configurationId || s.target.configurationId === configurationId))
      .sort((a, b) => Number(a.id) - Number(b.id));
    return c.json(all.map(scheduleJson));
  });

  api.get("/schedules/:scheduleId", authenticated, (c) => c.json(scheduleJson(requireSchedule(c.req.param("scheduleId")))));

  api.delete("/schedules/:scheduleId", authenticated, (c) => {
    master(c);
    const s = requireSchedule(c.req.param("scheduleId"));
    delete schedules()[s.id];
    return c.body(null, 204);
  });

  api.delete("/configurations/:configurationId", authenticated, (c) => {
    master(c);
    removeOfConfiguration(c.req.param("configurationId"));
    return c.body(null, 204);
  });

  api.post("/schedules/:scheduleId/refreshToken", authenticated, (c) => {
    master(c);
    const s = requireSchedule(c.req.param("scheduleId"));
    // The same token gets a new secret: its id and `created` stay, `refreshed` moves
    // (keboola-sdk-go pkg/keboola/scheduler_api_test.go TestSchedulerTokenRefresh reads the token
    // of `schedule.TokenID` from before the refresh and finds the same id and created time; the
    // Scheduler's OpenAPI spec: "Refresh the token associated with the schedule, if the token is
    // refreshed directly in Storage API, the schedule won't work" (api-evangelist/keboola
    // openapi/_original/keboola-scheduler-api-openapi.yml)).
    s.tokenRefreshed = new Date(ctx.now()).toISOString();
    return c.body(null, 202);
  });

  api.all("*", (c) => {
    throw new SchedulerHttpError(404, noRouteMessage(c.req.method, c.req.url));
  });

  api.onError((err, c) => {
    if (err instanceof SchedulerHttpError) return c.json(apiErrorControlBody(err.message, err.status, exceptionId(ctx)), err.status);
    throw err;
  });
  return api;
}
