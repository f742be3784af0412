import type { EmulatorContext } from "../core/context";
import { uuidV7 } from "../../keboola/uuid";
import { isJsonObject, isOneOf, parseJson, type JsonValue } from "../../keboola/json";
import { authenticated, type StorageApp } from "./auth";
import { readBody, readQuery, str } from "./body";
import { StorageHttpError } from "./errors";
import { nowStorage } from "./format";
import type { EventRecord } from "./state";

// Events (keboola/storage-api-php-client apiary.apib "Events", tests/Common/EventsTest.php and
// BranchEventsTest.php at commit f1d929a7; keboola-sdk-go pkg/keboola/storage_events.go):
//   POST /events, /branch/{b}/events {component, message, type?, description?, configurationId?,
//        params?, results?, duration?, runId?}            -> 201 {id, uuid}
//        `params` and `results` are objects or JSON-encoded strings (the SDK sends strings); the
//        event is `ext.<component>.`; a body over 200 KB is refused, 400 `requestTooLarge`.
//   GET  /events?component=&configurationId=&runId=&limit=&offset=&sortOrder=&sinceId=&maxId=
//        the branch's events, newest first by default (`sortOrder=asc` oldest first); a token
//        that is not a master token sees its own events only.
//   GET  /events/{id or uuid}
// kbc sends an event after every command (keboola-as-code internal/pkg/service/cli/event/sender.go).
// The emulator also records the storage events of what it does where a public test asserts one
// (recordEvent). It keeps the newest MAX_EVENTS events. Not in the public sources, so chosen here:
// the code and wording of a missing component or message.

const MAX_EVENTS = 1000;
const MAX_EVENT_BYTES = 200 * 1024;
const TYPES = ["info", "success", "warn", "error"] as const;

type EventJson = Omit<EventRecord, "token"> & {
  token: { id: string; name: string };
  uri: string;
  context: { [key: string]: JsonValue };
  attachments: JsonValue[];
};

function eventJson(ctx: EmulatorContext, e: EventRecord): EventJson {
  return { ...e, uri: `${ctx.baseUrl()}/v2/storage/events/${e.id}`, context: {}, attachments: [] };
}

/** An object parameter given as an object or as a JSON string; anything else is an empty object. */
function objectParam(v: unknown): { [key: string]: JsonValue } {
  if (typeof v === "string" && v.trim() !== "") {
    try {
      const parsed = parseJson(v);
      return isJsonObject(parsed) ? parsed : {};
    } catch {
      return {};
    }
  }
  return isJsonObject(v) ? v : {};
}

/** Records an event (oldest dropped past MAX_EVENTS) and answers it. */
export function recordEvent(
  ctx: EmulatorContext,
  e: Partial<Omit<EventRecord, "id" | "uuid" | "created" | "token" | "idBranch">> & {
    event: string;
    message: string;
    token: { id: string; description: string };
    branchId: number;
  },
): EventRecord {
  const { token, branchId, ...rest } = e;
  const record: EventRecord = {
    id: String(ctx.nextId("storage.event", 13008826)),
    uuid: uuidV7(ctx.now()),
    component: "storage",
    description: "",
    type: "info",
    runId: null,
    configurationId: null,
    objectId: null,
    objectName: null,
    objectType: null,
    params: {},
    results: {},
    performance: {},
    ...rest,
    created: nowStorage(ctx),
    token: { id: token.id, name: token.description },
    idBranch: branchId,
  };
  const events = ctx.state.storage.events;
  events.push(record);
  if (events.length > MAX_EVENTS) events.splice(0, events.length - MAX_EVENTS);
  return record;
}

export function registerEventRoutes(api: StorageApp, ctx: EmulatorContext): void {
  const auth = authenticated(ctx);

  api.post("/events", auth, async (c) => {
    const { token, branchId } = c.var;
    const size = Number(c.req.header("Content-Length") ?? 0);
    if (size > MAX_EVENT_BYTES) throw new StorageHttpError(400, "requestTooLarge", `The maximum allowed size of an event is ${MAX_EVENT_BYTES / 1024}KB.`);
    const { body } = await readBody(c);
    const component = str(body.component) ?? str(body.componentType);
    const message = str(body.message);
    if (!component) throw new StorageHttpError(400, "storage.events.validation", "Invalid parameters - component: This field is missing.");
    if (message === undefined) throw new StorageHttpError(400, "storage.events.validation", "Invalid parameters - message: This field is missing.");
    const type = str(body.type) ?? "info";
    if (!isOneOf(TYPES, type)) {
      throw new StorageHttpError(400, "storage.events.validation", `Invalid parameters - type: The value you selected is not a valid choice.`);
    }
    const duration = Number(str(body.duration) ?? body.duration ?? 0);
    const e = recordEvent(ctx, {
      event: `ext.${component}.`,
      component,
      message,
      description: str(body.description) ?? "",
      type,
      runId: str(body.runId) || null,
      configurationId: str(body.configurationId) ?? str(body.componentName) ?? null,
      params: objectParam(body.params),
      results: objectParam(body.results),
      performance: Number.isFinite(duration) && duration ? { duration } : {},
      token: { id: token.id, description: token.description },
      branchId,
    });
    return c.json({ id: e.id, uuid: e.uuid }, 201);
  });

  api.get("/events", auth, (c) => {
    const { token, branchId } = c.var;
    const q = readQuery(c);
    const limit = Math.max(1, Math.min(10000, Number(str(q.limit) ?? 100) || 100));
    const offset = Math.max(0, Number(str(q.offset) ?? 0) || 0);
    const component = str(q.component);
    const configurationId = str(q.configurationId);
    const runId = str(q.runId);
    const all = ctx.state.storage.events;
    const position = (id: string | undefined) => (id === undefined ? -1 : all.findIndex((e) => e.id === id || e.uuid === id));
    const since = position(str(q.sinceId));
    const max = position(str(q.maxId));
    const events = all.filter(
      (e, i) =>
        e.idBranch === branchId &&
        (token.isMasterToken || e.token.id === token.id) &&
        (component === undefined || e.component === component) &&
        (configurationId === undefined || e.configurationId === configurationId) &&
        (runId === undefined || e.runId === runId) &&
        (since < 0 || i > since) &&
        (max < 0 || i < max),
    );
    if (str(q.sortOrder) !== "asc") events.reverse();
    return c.json(events.slice(offset, offset + limit).map((e) => eventJson(ctx, e)));
  });

  api.get("/events/:eventId", auth, (c) => {
    const id = c.req.param("eventId");
    const e = ctx.state.storage.events.find((x) => (x.id === id || x.uuid === id) && x.idBranch === c.var.branchId);
    if (!e) throw new StorageHttpError(404, "storage.events.notFound", `Event ${id} not found`);
    return c.json(eventJson(ctx, e));
  });
}
