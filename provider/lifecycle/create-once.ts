import { isAmbiguous, asError } from "../api/errors";
import { conflict } from "./ownership";

// Creating a remote object exactly once, for every kind. The danger is not a duplicate where the id
// is chosen on our side (a repeated create addresses the same object and the service answers that
// it exists); it is losing track of an object our own earlier request created (a lost answer, a
// 5xx, a crash before Pulumi saved the state), or taking somebody else's object for ours. So after
// an answer saying the object exists, or a failure that leaves the outcome unknown, the object is
// looked up: it is taken over when it carries this resource's owner marker (or adoptExisting is
// set), refused as a conflict when it carries another, and created again only when it is certainly
// absent. A create may answer the object itself (Storage) or a task that makes it (Stream).

/** What a create request answered: the object, or an accepted task that makes it. */
export type Accepted<T, K> = { object: T } | { task: K };

export interface CreateOnce<T, K = never> {
  label: string;
  /** Where the object lives, for messages ("in branch 123"). */
  where: string;
  /**
   * This resource's owner marker (its URN); omitted when unknown (then only adoptExisting takes
   * over) or when found objects carry none (no ownerOf).
   */
  owner?: string | undefined;
  /** Take over an existing object whatever its marker (reading it first). Default false. */
  adoptExisting?: boolean;
  /** What to change to avoid a conflict, for the conflict message; only objects with an ownerOf can conflict. */
  fix?: string;
  /** The object as it stands now, addressed as the create addresses it; undefined when absent. */
  find(): Promise<T | undefined>;
  /**
   * The owner marker an existing object carries. Omitted for objects that carry none and are found
   * by a rule that only matches ours (a row of this name no other declared row claimed).
   */
  ownerOf?(object: T): string | undefined;
  create(): Promise<Accepted<T, K>>;
  /** Waits for an accepted task to finish and returns the object it made. */
  finish?(task: K): Promise<T>;
  /** Whether a failed create says the object exists (a 409, a `...AlreadyExists` code). */
  exists(err: unknown): boolean;
  /**
   * What an "exists" answer means while the object cannot be read yet: `wait` (Stream: its create
   * task still runs; wait until it is readable) or `fail` (Storage: answer as the service did).
   */
  whenExistsUnreadable: "wait" | "fail";
  /** Called when a task failed but the object exists: throw so Pulumi keeps tracking it. */
  leftBehind?(object: T, err: Error): never;
}

export interface Created<T> {
  object: T;
  /** True when the object existed already (ours from an earlier attempt, or adopted): converge it. */
  existed: boolean;
}

/** Creates sent at most, when each attempt is certainly absent afterwards. */
const MAX_CREATES = 6;

export async function createOnce<T, K = never>(op: CreateOnce<T, K>): Promise<Created<T>> {
  if (op.adoptExisting) {
    // An explicit takeover reads first: taking over writes nothing it need not.
    const found = await op.find();
    if (found) return { object: found, existed: true };
  }
  for (let attempt = 1; ; attempt++) {
    let accepted: Accepted<T, K>;
    try {
      accepted = await op.create();
    } catch (err) {
      const exists = op.exists(err);
      if (!exists && !isAmbiguous(err)) throw err;
      // Exists: perhaps still being made (Stream objects are not readable until their task ends).
      // Ambiguous: our request may have created it, or not.
      const found = exists && op.whenExistsUnreadable === "wait" ? await waitVisible(op.find, op.label) : await op.find();
      if (found) return { object: claim(op, found), existed: true };
      if (exists || attempt >= MAX_CREATES) throw err;
      // Certainly absent now. Creating again cannot make a second one (the id is ours); a create
      // racing a task that is still making the object is answered with a 5xx by Stream
      // (keboola/keboola-as-code internal/pkg/service/stream/api/service/source.go maps only the
      // sink's case to 409), so back off before asking again.
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** attempt)));
      continue;
    }
    if ("object" in accepted) return { object: accepted.object, existed: false };
    if (!op.finish) throw new Error(`${op.label}: the create answered a task and nothing waits for it`);
    try {
      return { object: await op.finish(accepted.task), existed: false };
    } catch (err) {
      const left = await op.find().catch(() => undefined);
      if (left && op.leftBehind) op.leftBehind(left, asError(err));
      throw err;
    }
  }
}

/** The found object, when it is this resource's (or adoption was asked for); else a conflict. */
function claim<T, K>(op: CreateOnce<T, K>, found: T): T {
  if (!op.ownerOf) return found;
  const owner = op.ownerOf(found);
  if (op.adoptExisting || (op.owner !== undefined && owner === op.owner)) return found;
  throw conflict(op.label, op.where, owner, op.owner, op.fix ?? "");
}

/** Polls until the object can be read: after its task, or while a create of it is in flight. */
export async function waitVisible<T>(find: () => Promise<T | undefined>, label: string): Promise<T> {
  for (let i = 0, delay = 50; ; i++, delay = Math.min(delay * 2, 1000)) {
    const found = await find();
    if (found) return found;
    if (i >= 20) throw new Error(`${label} exists (the service says so) but cannot be read back; run \`pulumi up\` again`);
    await new Promise((r) => setTimeout(r, delay));
  }
}
