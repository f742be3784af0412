// The emulator's settings PATCH and the provider's check read durations and sizes with the same
// parser: every recorded case (test/unit/fixtures/go-quantities.json, from the Go code the service
// runs) is refused by both or by neither, and both quote the same Go error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startEmulator, type Emulator } from "../../emulator/server";
import { settingsShape } from "../../provider/validation/settings";
import recorded from "../unit/fixtures/go-quantities.json";
import { call, pollUntil } from "./helpers";

interface Case {
  in: string;
  value?: string;
  str?: string;
  err?: string;
}

let em: Emulator;
const source = "/v1/branches/default/sources/parsers";

beforeAll(async () => {
  em = await startEmulator({ token: "master", taskDurationMs: 0 });
  const created = await call(em.urls.stream, "POST", "/v1/branches/default/sources", { token: "master", json: { name: "Parsers", sourceId: "parsers", type: "http" } });
  expect(created.status, created.text).toBe(202);
  await finished(created.body);
});

afterAll(async () => {
  await em?.close();
});

async function finished(task: { url: string }): Promise<{ status: string }> {
  const res = await pollUntil(
    () => call(task.url, "GET", "", { token: "master" }),
    (r) => r.status !== 200 || r.body.isFinished === true,
  );
  expect(res.status, res.text).toBe(200);
  return res.body;
}

const check = z.object(settingsShape).strict();

/** The provider's check reason for one value of `<trigger>.<field>`, or undefined when accepted. */
function checkReason(field: "interval" | "size", value: string): string | undefined {
  const r = check.safeParse({ stagingUploadTrigger: { [field]: value } });
  return r.success ? undefined : r.error.issues[0].message;
}

const cases = (list: Case[], field: "interval" | "size", key: string) =>
  list
    // An empty duration or size means "reset" in the PATCH; check refuses it as empty instead.
    .filter((c) => c.in !== "")
    .map((c) => [c.in, c, field, `storage.level.staging.upload.trigger.${key}`] as const);

describe("settings PATCH and check refuse the same spellings", () => {
  it.each([...cases(recorded.durations, "interval", "interval"), ...cases(recorded.sizes, "size", "size")])(
    "%j",
    async (_, c, field, key) => {
      const res = await call(em.urls.stream, "PATCH", `${source}/settings`, { token: "master", json: { settings: [{ key, value: c.in }] } });
      const reason = checkReason(field, c.in);
      if (c.err === undefined) {
        expect(res.status, res.text).toBe(202);
        expect((await finished(res.body)).status).toBe("success");
        const shown = (await call(em.urls.stream, "GET", `${source}/settings`, { token: "master" })).body.settings.find((s: { key: string }) => s.key === key);
        expect(shown.value).toBe(c.str);
        // Check accepts it too, or refuses it only for the range (which the service checks later).
        if (reason !== undefined) expect(reason).toContain("is out of range");
      } else {
        expect(res.status, res.text).toBe(400);
        // The service's PATCH text: keboola/keboola-as-code configpatch binding of duration.Duration
        // (Go's full error) and datasize.ByteSize (the NumError's reason after the quoted value).
        const goText = field === "interval" ? c.err : c.err.slice(c.err.indexOf('": ') + 3).trimEnd();
        expect(res.body.message).toContain(goText);
        expect(reason).toContain(`is not a ${field === "interval" ? "duration" : "size"} the service accepts (${c.err}): write it like `);
      }
    },
  );
});
