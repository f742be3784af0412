import { afterEach, describe, expect, it, vi } from "vitest";
import { createOnce, waitVisible, type Accepted, type CreateOnce } from "../../provider/lifecycle/create-once";
import { KeboolaApiError, KeboolaNetworkError } from "../../provider/api/errors";
import { OwnershipConflict } from "../../provider/lifecycle/ownership";

// Creating a remote object exactly once (provider/lifecycle/create-once.ts), with a scripted
// service: what each create answers and what each lookup finds. The resource tests run the same
// rules against the emulator; here each branch is driven on its own, and the calls are counted.

const request = { service: "storage" as const, method: "POST", path: "/v2/storage/buckets" };
const exists = () => new KeboolaApiError(409, "storage.buckets.alreadyExists", "The bucket already exists.", request);
const serverError = () => new KeboolaApiError(503, undefined, "Service unavailable", request);
const lostAnswer = () => new KeboolaNetworkError(request, "socket hang up", true);
const refused = () => new KeboolaApiError(400, "storage.validation", "Invalid name", request);

const MINE = "urn:pulumi:dev::proj::pulumi-nodejs:dynamic/keboola:Bucket::raw";
const THEIRS = "urn:pulumi:prod::proj::pulumi-nodejs:dynamic/keboola:Bucket::raw";

interface Obj {
  id: string;
  owner?: string;
}

/** An operation whose create answers (or throws) `creates` in turn and whose find answers `finds` in turn (the last repeats). */
function scripted(opts: {
  creates: Array<Accepted<Obj, string> | Error>;
  finds?: Array<Obj | undefined>;
  finish?: (task: string) => Promise<Obj>;
  leftBehind?: CreateOnce<Obj, string>["leftBehind"];
  adoptExisting?: boolean;
  owner?: string;
  ownerOf?: boolean;
  whenExistsUnreadable?: "wait" | "fail";
}) {
  const calls = { create: 0, find: 0 };
  const finds = opts.finds ?? [undefined];
  const op: CreateOnce<Obj, string> = {
    label: 'bucket "in.c-raw"',
    where: "in branch 101",
    owner: "owner" in opts ? opts.owner : MINE,
    adoptExisting: opts.adoptExisting,
    fix: "Rename it.",
    async find() {
      calls.find++;
      return finds[Math.min(calls.find, finds.length) - 1];
    },
    ...(opts.ownerOf === false ? {} : { ownerOf: (o: Obj) => o.owner }),
    async create() {
      const answer = opts.creates[Math.min(calls.create, opts.creates.length - 1)];
      calls.create++;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    finish: opts.finish,
    exists: (err) => err instanceof KeboolaApiError && err.status === 409,
    whenExistsUnreadable: opts.whenExistsUnreadable ?? "fail",
    leftBehind: opts.leftBehind,
  };
  return { op, calls };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("createOnce", () => {
  it("creates once and reads nothing when the create answers the object", async () => {
    const { op, calls } = scripted({ creates: [{ object: { id: "in.c-raw" } }] });
    await expect(createOnce(op)).resolves.toEqual({ object: { id: "in.c-raw" }, existed: false });
    expect(calls).toEqual({ create: 1, find: 0 });
  });

  it("with adoptExisting reads first and takes over what it finds, whatever its marker, without writing", async () => {
    const { op, calls } = scripted({ adoptExisting: true, creates: [refused()], finds: [{ id: "in.c-raw", owner: THEIRS }] });
    await expect(createOnce(op)).resolves.toEqual({ object: { id: "in.c-raw", owner: THEIRS }, existed: true });
    expect(calls).toEqual({ create: 0, find: 1 });
  });

  it("with adoptExisting and nothing there, creates it", async () => {
    const { op, calls } = scripted({ adoptExisting: true, creates: [{ object: { id: "in.c-raw" } }], finds: [undefined] });
    await expect(createOnce(op)).resolves.toEqual({ object: { id: "in.c-raw" }, existed: false });
    expect(calls).toEqual({ create: 1, find: 1 });
  });

  it("passes a refusal on as it is, without looking the object up", async () => {
    const err = refused();
    const { op, calls } = scripted({ creates: [err], finds: [{ id: "in.c-raw", owner: MINE }] });
    await expect(createOnce(op)).rejects.toBe(err);
    expect(calls).toEqual({ create: 1, find: 0 });
  });

  describe("after an answer that the object exists", () => {
    it("takes it over when it carries this resource's marker (an earlier attempt made it)", async () => {
      const { op, calls } = scripted({ creates: [exists()], finds: [{ id: "in.c-raw", owner: MINE }] });
      await expect(createOnce(op)).resolves.toEqual({ object: { id: "in.c-raw", owner: MINE }, existed: true });
      expect(calls).toEqual({ create: 1, find: 1 });
    });

    it("refuses another stack's object as a conflict that names both owners and the fix", async () => {
      const { op } = scripted({ creates: [exists()], finds: [{ id: "in.c-raw", owner: THEIRS }] });
      const err = await createOnce(op).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OwnershipConflict);
      expect((err as Error).message).toBe(
        'bucket "in.c-raw" already exists in branch 101 and belongs to stack "prod" of project "proj", resource keboola:Bucket "raw"; ' +
          'this resource is stack "dev" of project "proj", resource keboola:Bucket "raw". Nothing was taken over. Rename it.',
      );
    });

    it("refuses an object without a marker, and any object when this resource's own marker is not known", async () => {
      const unmarked = scripted({ creates: [exists()], finds: [{ id: "in.c-raw" }] });
      await expect(createOnce(unmarked.op)).rejects.toBeInstanceOf(OwnershipConflict);
      // No owner of our own: even an object without a marker (owner undefined on both sides) is not ours.
      const ownerless = scripted({ owner: undefined, creates: [exists()], finds: [{ id: "in.c-raw" }] });
      await expect(createOnce(ownerless.op)).rejects.toThrow(/^bucket "in.c-raw" already exists in branch 101 and belongs to nobody recorded .*; this resource is nobody recorded/);
    });

    it("a conflict without a fix of its own ends the message there", async () => {
      const { op } = scripted({ creates: [exists()], finds: [{ id: "in.c-raw", owner: THEIRS }] });
      delete op.fix;
      await expect(createOnce(op)).rejects.toThrow(/Nothing was taken over\. $/);
    });

    it("takes over an object of a kind that carries no marker (found by a rule that only matches ours)", async () => {
      const { op } = scripted({ ownerOf: false, creates: [exists()], finds: [{ id: "row-1", owner: THEIRS }] });
      await expect(createOnce(op)).resolves.toEqual({ object: { id: "row-1", owner: THEIRS }, existed: true });
    });

    it("answers as the service did when the object cannot be read (Storage: no second create)", async () => {
      const err = exists();
      const { op, calls } = scripted({ creates: [err, { object: { id: "x" } }], finds: [undefined] });
      await expect(createOnce(op)).rejects.toBe(err);
      expect(calls).toEqual({ create: 1, find: 1 });
    });

    it("waits until it can be read where its create task still runs (Stream)", async () => {
      vi.useFakeTimers();
      const { op, calls } = scripted({ whenExistsUnreadable: "wait", creates: [exists()], finds: [undefined, undefined, { id: "events", owner: MINE }] });
      const result = createOnce(op);
      await vi.runAllTimersAsync();
      await expect(result).resolves.toEqual({ object: { id: "events", owner: MINE }, existed: true });
      expect(calls).toEqual({ create: 1, find: 3 });
    });
  });

  describe("after a failure that leaves the outcome unknown (a lost answer, a 5xx)", () => {
    it("takes over what the lost request made", async () => {
      const { op, calls } = scripted({ creates: [lostAnswer()], finds: [{ id: "in.c-raw", owner: MINE }] });
      await expect(createOnce(op)).resolves.toEqual({ object: { id: "in.c-raw", owner: MINE }, existed: true });
      expect(calls).toEqual({ create: 1, find: 1 });
    });

    it("reads once (no waiting) and creates again, after a pause, when the object is certainly absent", async () => {
      vi.useFakeTimers();
      const { op, calls } = scripted({ whenExistsUnreadable: "wait", creates: [serverError(), { object: { id: "in.c-raw" } }], finds: [undefined] });
      const result = createOnce(op);
      await vi.advanceTimersByTimeAsync(0);
      // The first attempt failed and nothing was found: the second waits for its back-off (200 ms).
      expect(calls).toEqual({ create: 1, find: 1 });
      await vi.advanceTimersByTimeAsync(199);
      expect(calls.create).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      await expect(result).resolves.toEqual({ object: { id: "in.c-raw" }, existed: false });
      expect(calls).toEqual({ create: 2, find: 1 });
    });

    it("gives up after six creates, each followed by a lookup, with the last failure; the pauses double up to 2 s", async () => {
      vi.useFakeTimers();
      const last = serverError();
      const { op, calls } = scripted({ creates: [lostAnswer(), lostAnswer(), serverError(), serverError(), serverError(), last], finds: [undefined] });
      const started = Date.now();
      const result = createOnce(op).catch((e: unknown) => e);
      await vi.runAllTimersAsync();
      expect(await result).toBe(last);
      expect(calls).toEqual({ create: 6, find: 6 });
      // 200 + 400 + 800 + 1600 + 2000 ms between the six attempts.
      expect(Date.now() - started).toBe(5000);
    });

    it("a network failure known to have sent nothing is passed on without a lookup", async () => {
      const err = new KeboolaNetworkError(request, "connect ECONNREFUSED", false);
      const { op, calls } = scripted({ creates: [err] });
      await expect(createOnce(op)).rejects.toBe(err);
      expect(calls).toEqual({ create: 1, find: 0 });
    });
  });

  describe("a create answered with a task", () => {
    it("returns what the task made", async () => {
      const { op, calls } = scripted({ creates: [{ task: "task-1" }], finish: async (task) => ({ id: `made by ${task}` }) });
      await expect(createOnce(op)).resolves.toEqual({ object: { id: "made by task-1" }, existed: false });
      expect(calls).toEqual({ create: 1, find: 0 });
    });

    it("fails clearly when nothing waits for the task", async () => {
      const { op } = scripted({ creates: [{ task: "task-1" }] });
      await expect(createOnce(op)).rejects.toThrow('bucket "in.c-raw": the create answered a task and nothing waits for it');
    });

    it("a failed task that left the object behind is reported through leftBehind, so Pulumi keeps tracking it", async () => {
      const seen: Array<[Obj, string]> = [];
      const { op } = scripted({
        creates: [{ task: "task-1" }],
        finish: async () => {
          throw new Error("task failed: quota");
        },
        finds: [{ id: "half-made" }],
        leftBehind(object, err) {
          seen.push([object, err.message]);
          throw new Error("left behind");
        },
      });
      await expect(createOnce(op)).rejects.toThrow("left behind");
      expect(seen).toEqual([[{ id: "half-made" }, "task failed: quota"]]);
    });

    it("a failed task that left nothing, or a lookup that fails, passes the task's failure on", async () => {
      const failure = new Error("task failed");
      const finish = async () => {
        throw failure;
      };
      const leftBehind = () => {
        throw new Error("must not be called");
      };
      const nothing = scripted({ creates: [{ task: "t" }], finish, finds: [undefined], leftBehind });
      await expect(createOnce(nothing.op)).rejects.toBe(failure);
      expect(nothing.calls.find).toBe(1);
      const lookupFails = scripted({ creates: [{ task: "t" }], finish, leftBehind });
      lookupFails.op.find = async () => {
        throw new Error("lookup failed");
      };
      await expect(createOnce(lookupFails.op)).rejects.toBe(failure);
      // Found, but the kind has no leftBehind: the failure still.
      const noHook = scripted({ creates: [{ task: "t" }], finish, finds: [{ id: "x" }] });
      await expect(createOnce(noHook.op)).rejects.toBe(failure);
    });
  });
});

describe("waitVisible", () => {
  it("polls with doubling pauses (50 ms up to 1 s) and gives up after 21 reads with what to do", async () => {
    vi.useFakeTimers();
    let reads = 0;
    const started = Date.now();
    const result = waitVisible(async () => {
      reads++;
      return undefined;
    }, 'source "events"').catch((e: unknown) => e);
    await vi.runAllTimersAsync();
    expect(((await result) as Error).message).toBe('source "events" exists (the service says so) but cannot be read back; run `pulumi up` again');
    expect(reads).toBe(21);
    // 50 + 100 + 200 + 400 + 800, then 1000 ms fifteen times.
    expect(Date.now() - started).toBe(16550);
  });

  it("answers as soon as a read finds the object", async () => {
    let reads = 0;
    await expect(waitVisible(async () => (++reads === 1 ? { id: "events" } : undefined), "x")).resolves.toEqual({ id: "events" });
    expect(reads).toBe(1);
  });
});
