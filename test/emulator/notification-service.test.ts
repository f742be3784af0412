import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startEmulator, type Emulator } from "../../emulator/server";
import { expirationMs } from "../../emulator/project-services/notification";
import { call } from "./helpers";

// The Notification service's project subscriptions (emulator/project-services/notification.ts).
// Expected answers from keboola/keboola-sdk-go v2.21.0 pkg/keboola/notification_api_test.go
// (TestNotificationAPICreateSubscription, ...ListSubscriptions, ...DeleteSubscription,
// ...GetSubscription, ...GroupByEvent, ...EmptyFilters, ...AbsoluteExpiration,
// ...RelativeExpiration, ...PhaseEvents, ...CleanupAll) and what it decodes
// (notification_model.go, notification_error.go); the service's swagger (a copy:
// api-evangelist/keboola openapi/keboola-project-subscriptions-api-openapi.yml);
// keboola/notification-api-php-client tests/SubscriptionClientFunctionalTest.php and
// src/Responses/*.php; keboola/cli PR #618 (the service ignores `?event=`).

let emu: Emulator;
type Options = Parameters<typeof call>[3];
const notification = (method: string, path: string, opts: Options = {}) => call(emu.urls.notification, method, path, { token: "master", ...opts });
const create = (json: unknown, token = "master") => notification("POST", "/project-subscriptions", { json, token });
const email = (address: string) => ({ channel: "email", address });
/** What keboola-sdk-go's NewCreateNotificationSubscriptionRequest sends: filters `[]`, an e-mail recipient. */
const sdkBody = (event: string, address = "test@example.com", extra: Record<string, unknown> = {}) => ({ event, recipient: email(address), filters: [], ...extra });
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/;

beforeAll(async () => {
  emu = await startEmulator({ token: "master", limitedToken: "limited", taskDurationMs: 5 });
});
afterAll(() => emu.close());

describe("creating a subscription", () => {
  it("answers 201 with the subscription, a branch filter for the default branch added (TestNotificationAPIEmptyFilters)", async () => {
    const r = await create(sdkBody("job-failed"));
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      projectId: "4242",
      event: "job-failed",
      filters: [{ field: "branch.id", value: "101", operator: "==" }],
      recipient: { channel: "email", address: "test@example.com" },
    });
    expect(r.body).not.toHaveProperty("expiresAt");
  });

  it("keeps the filters sent, in order, with the operator defaulted, and adds the branch filter after them", async () => {
    const r = await create({
      event: "job-processing-long",
      filters: [
        { field: "project.id", value: "4242" },
        { field: "job.configuration.id", value: "12345", operator: "!=" },
        { field: "durationOvertimePercentage", operator: ">=", value: 0.75 },
      ],
      recipient: email("user@example.com"),
    });
    expect(r.status).toBe(201);
    expect(r.body.filters).toEqual([
      { field: "project.id", value: "4242", operator: "==" },
      { field: "job.configuration.id", value: "12345", operator: "!=" },
      { field: "durationOvertimePercentage", value: 0.75, operator: ">=" },
      { field: "branch.id", value: "101", operator: "==" },
    ]);
  });

  it("adds no branch filter when one is sent, and takes a request without filters", async () => {
    const branched = await create({ event: "job-failed", filters: [{ field: "branch.id", value: "1234" }], recipient: email("a@example.com") });
    expect(branched.body.filters).toEqual([{ field: "branch.id", value: "1234", operator: "==" }]);
    // keboola/cli leaves `filters` out when it has none.
    const none = await create({ event: "job-succeeded", recipient: email("b@example.com") });
    expect(none.status).toBe(201);
    expect(none.body.filters).toEqual([{ field: "branch.id", value: "101", operator: "==" }]);
  });

  it("reads a relative expiration from now and answers it as RFC 3339 (TestNotificationAPIRelativeExpiration)", async () => {
    const before = Date.now();
    const r = await create(sdkBody("job-succeeded", "test@example.com", { expiresAt: "+24 hours" }));
    expect(r.status).toBe(201);
    expect(r.body.expiresAt).toMatch(RFC3339);
    const expires = Date.parse(r.body.expiresAt);
    expect(Math.abs(expires - (before + 24 * 3_600_000))).toBeLessThanOrEqual(60_000);
  });

  it("reads an absolute expiration in the swagger's and in Go's RFC 3339 forms (TestNotificationAPIAbsoluteExpiration)", async () => {
    const swagger = await create(sdkBody("job-failed", "test@example.com", { expiresAt: "2030-01-07 14:00:00+01:00" }));
    expect(swagger.body.expiresAt).toBe("2030-01-07T13:00:00+00:00");
    const go = await create(sdkBody("job-failed", "test@example.com", { expiresAt: "2030-01-07T14:00:00Z" }));
    expect(go.body.expiresAt).toBe("2030-01-07T14:00:00+00:00");
  });

  it("follows the emulated clock for a relative expiration", async () => {
    const other = await startEmulator({ token: "t" });
    try {
      expect((await call(other.url, "POST", "/_emulator/clock", { json: { advance: "48h" } })).status).toBe(200);
      const before = Date.now();
      const r = await call(other.urls.notification, "POST", "/project-subscriptions", { token: "t", json: sdkBody("job-failed", "x@example.com", { expiresAt: "+1 day" }) });
      const expires = Date.parse(r.body.expiresAt);
      expect(Math.abs(expires - (before + 3 * 86_400_000))).toBeLessThanOrEqual(60_000);
    } finally {
      await other.close();
    }
  });

  it("takes every job and phase event (TestNotificationAPIPhaseEvents) and a webhook recipient with its url", async () => {
    for (const event of ["job-succeeded-with-warning", "phase-job-failed", "phase-job-succeeded", "phase-job-succeeded-with-warning", "phase-job-processing-long"]) {
      const r = await create(sdkBody(event));
      expect(r.status).toBe(201);
      expect(r.body.event).toBe(event);
    }
    const hook = await create({ event: "job-failed", filters: [], recipient: { channel: "webhook", url: "https://webhook.example.com/notifications" } });
    expect(hook.status).toBe(201);
    expect(hook.body.recipient).toEqual({ channel: "webhook", url: "https://webhook.example.com/notifications" });
  });
});

describe("validation", () => {
  const refused = async (json: unknown, message: string) => {
    const r = await create(json);
    expect(r.status).toBe(400);
    // The api-error-control shape keboola-sdk-go's NotificationError decodes.
    expect(r.body).toEqual({ error: message, code: 400, exceptionId: expect.stringMatching(/^exception-[0-9a-f]{32}$/), status: "error", context: [] });
  };

  it("refuses an unknown or missing event", async () => {
    await refused(sdkBody("dummy-event"), "Invalid request: event: The value you selected is not a valid choice.");
    await refused({ recipient: email("a@example.com") }, "Invalid request: event: This value should not be blank.");
  });

  it("refuses a webhook recipient with an address instead of a url, as keboola-sdk-go would send it", async () => {
    await refused({ event: "job-failed", filters: [], recipient: { channel: "webhook", address: "https://example.com/hook" } }, "Invalid request: recipient.url: This value should not be blank.");
  });

  it("refuses a bad recipient, filter or expiration", async () => {
    await refused({ event: "job-failed" }, "Invalid request: recipient: This value should not be blank.");
    await refused(sdkBody("job-failed", "not-an-email"), "Invalid request: recipient.address: This value is not a valid email address.");
    await refused({ event: "job-failed", recipient: { channel: "sms", address: "+420" } }, "Invalid request: recipient.channel: The value you selected is not a valid choice.");
    await refused({ ...sdkBody("job-failed"), filters: [{ field: "job.id", value: "1", operator: "~" }] }, "Invalid request: filters[0].operator: The value you selected is not a valid choice.");
    await refused({ ...sdkBody("job-failed"), filters: [{ field: "", value: "1" }] }, "Invalid request: filters[0].field: This value should not be blank.");
    await refused(sdkBody("job-failed", "a@example.com", { expiresAt: "next tuesday-ish" }), "Invalid request: expiresAt: This value is not a valid datetime.");
  });

  it("refuses a body that is not a JSON object", async () => {
    const r = await notification("POST", "/project-subscriptions", { body: "{not json", headers: { "Content-Type": "application/json" } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe("Request body is not a valid JSON.");
    expect((await create([1, 2])).body.error).toBe("Request body must be a JSON object.");
  });
});

describe("listing, getting and deleting", () => {
  it("lists the project's subscriptions and gets one (TestNotificationAPIListSubscriptions, TestNotificationAPIGetSubscription)", async () => {
    const failed = (await create(sdkBody("job-failed", "list1@example.com"))).body;
    const succeeded = (await create(sdkBody("job-succeeded", "list2@example.com"))).body;
    const all = await notification("GET", "/project-subscriptions");
    expect(all.status).toBe(200);
    const ids: string[] = all.body.map((s: { id: string }) => s.id);
    expect(ids).toEqual(expect.arrayContaining([failed.id, succeeded.id]));
    expect(ids).toEqual([...ids].sort((a, b) => Number(a) - Number(b)));
    expect(all.body.find((s: { id: string }) => s.id === failed.id)).toEqual(failed);

    const got = await notification("GET", `/project-subscriptions/${failed.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(failed);
  });

  it("ignores `?event=` as the real service does (keboola/cli PR #618)", async () => {
    const all = (await notification("GET", "/project-subscriptions")).body;
    const filtered = await notification("GET", "/project-subscriptions?event=job-failed");
    expect(filtered.status).toBe(200);
    expect(filtered.body).toEqual(all);
    expect(new Set(filtered.body.map((s: { event: string }) => s.event)).size).toBeGreaterThan(1);
  });

  it("deletes a subscription with 204; then it is 404 (TestNotificationAPIDeleteSubscription)", async () => {
    const sub = (await create(sdkBody("job-succeeded", "delete@example.com"))).body;
    const del = await notification("DELETE", `/project-subscriptions/${sub.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    const get = await notification("GET", `/project-subscriptions/${sub.id}`);
    expect(get.status).toBe(404);
    expect(get.body).toEqual({ error: `Subscription "${sub.id}" not found.`, code: 404, exceptionId: expect.any(String), status: "error", context: [] });
    expect((await notification("DELETE", `/project-subscriptions/${sub.id}`)).status).toBe(404);
    expect((await notification("GET", "/project-subscriptions")).body.map((s: { id: string }) => s.id)).not.toContain(sub.id);
  });

  it("answers the service's no-route 404 for an id that is not a number", async () => {
    const r = await notification("GET", "/project-subscriptions/abc");
    expect(r.status).toBe(404);
    expect(r.body.error).toBe(`No route found for "GET ${emu.urls.notification}/project-subscriptions/abc"`);
  });

  it("deletes all listed subscriptions as CleanProject does, leaving none (TestNotificationAPICleanupAll, clean_test.go)", async () => {
    await create(sdkBody("phase-job-failed", "clean@example.com"));
    const listed = (await notification("GET", "/project-subscriptions")).body as Array<{ id: string }>;
    expect(listed.length).toBeGreaterThanOrEqual(3);
    for (const s of listed) expect((await notification("DELETE", `/project-subscriptions/${s.id}`)).status).toBe(204);
    expect((await notification("GET", "/project-subscriptions")).body).toEqual([]);
  });
});

describe("authentication and state", () => {
  it("needs a valid token; any token of the project may manage subscriptions", async () => {
    const missing = await create(sdkBody("job-failed"), "");
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ error: "Authentication token is missing", code: 401, status: "error" });
    const invalid = await call(emu.urls.notification, "GET", "/project-subscriptions", { token: "nope" });
    expect(invalid.status).toBe(401);
    expect(invalid.body.error).toBe("Invalid access token");
    const byLimited = await create(sdkBody("job-failed", "limited@example.com"), "limited");
    expect(byLimited.status).toBe(201);
    expect((await call(emu.urls.notification, "GET", `/project-subscriptions/${byLimited.body.id}`, { token: "limited" })).body.id).toBe(byLimited.body.id);
  });

  it("keeps subscriptions in the state file across a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "emu-notification-"));
    try {
      const stateFile = join(dir, "state.json");
      const first = await startEmulator({ token: "t", stateFile });
      const created = (await call(first.urls.notification, "POST", "/project-subscriptions", { token: "t", json: sdkBody("job-failed", "kept@example.com", { expiresAt: "2031-05-01T10:00:00+02:00" }) })).body;
      await first.close();
      const second = await startEmulator({ token: "t", stateFile });
      try {
        expect((await call(second.urls.notification, "GET", "/project-subscriptions", { token: "t" })).body).toEqual([created]);
        const next = (await call(second.urls.notification, "POST", "/project-subscriptions", { token: "t", json: sdkBody("job-failed") })).body;
        expect(next.id).not.toBe(created.id);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("expiration values", () => {
  const now = Date.parse("2026-03-31T12:00:00Z");
  it("reads PHP's relative forms and absolute times, and nothing else", () => {
    expect(expirationMs("+24 hours", now)).toBe(now + 24 * 3_600_000);
    expect(expirationMs("+1 day", now)).toBe(now + 86_400_000);
    expect(expirationMs("+2 weeks", now)).toBe(now + 14 * 86_400_000);
    expect(expirationMs("+30 minutes", now)).toBe(now + 30 * 60_000);
    expect(expirationMs("+1 month", now)).toBe(Date.parse("2026-05-01T12:00:00Z"));
    expect(expirationMs("2023-01-07 14:00:00+01:00", now)).toBe(Date.parse("2023-01-07T13:00:00Z"));
    expect(expirationMs("2023-01-07", now)).toBe(Date.parse("2023-01-07T00:00:00Z"));
    expect(expirationMs("tomorrow-ish", now)).toBeUndefined();
    expect(expirationMs("2023-13-45 99:00", now)).toBeUndefined();
  });
});
