import { isAmbiguous, isConflict } from "../api/errors";
import type { StreamTask } from "../api/stream";
import { conflict } from "./ownership";

// Creating a Stream object exactly once. Ids are chosen by us, so a repeated create cannot make a
// duplicate: the service answers 409 for an id that exists (also while its create task runs).
// The danger is losing track of an object our own earlier request created (a lost answer, a 5xx,
// a crash before Pulumi saved the state), or taking somebody else's object for ours. So after a
// 409 or an ambiguous failure the object is read by id and taken over only when it carries this
// resource's owner marker (or `adoptExisting` is set); when it is certainly absent, the create is
// sent again.

export interface CreateOnce<T> {
  label: string;
  /** Where the object lives, for messages ("in branch 123"). */
  where: string;
  /** This resource's owner marker (its URN); undefined when unknown (then only adoptExisting takes over). */
  owner: string | undefined;
  adoptExisting: boolean;
  find(): Promise<T | undefined>;
  ownerOf(object: T): string | undefined;
  create(): Promise<StreamTask>;
  runTask(task: StreamTask): Promise<StreamTask>;
  /**
   * The object as created, from what we sent and the finished task's outputs, when they say all
   * there is to say (saves reading it back); undefined to read it.
   */
  fromTask?(finished: StreamTask): T | undefined;
  /** Called when a step failed but the object exists: throw so Pulumi keeps tracking it. */
  leftBehind(object: T, err: Error): never;
  /** What to change to avoid a conflict, for the conflict message. */
  fix: string;
}

export interface Created<T> {
  object: T;
  /** True when the object existed already (ours from an earlier attempt, or adopted): converge it. */
  existed: boolean;
}

const MAX_CREATES = 6;

export async function createOnce<T>(op: CreateOnce<T>): Promise<Created<T>> {
  if (op.adoptExisting) {
    // An explicit takeover reads first: taking over writes nothing it need not.
    const found = await op.find();
    if (found) return { object: found, existed: true };
  }
  for (let attempt = 1; ; attempt++) {
    let task: StreamTask;
    try {
      task = await op.create();
    } catch (err) {
      if (!isConflict(err) && !isAmbiguous(err)) throw err;
      // 409: it exists, perhaps still being created (not readable until its task ends).
      // Ambiguous: our request may have created it, or not.
      const found = isConflict(err) ? await waitVisible(op.find, op.label) : await op.find();
      if (found) return { object: claim(op, found), existed: true };
      if (attempt >= MAX_CREATES) throw err;
      // Not readable: absent, or still being created by a task (ours or a racing one). The service
      // answers a create of a source whose create task still runs with a 500 (keboola/keboola-as-code
      // internal/pkg/service/stream/api/service/source.go maps only the sink's case to 409), so
      // back off before asking again: once that task ends, the answer is a 409 and the object readable.
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** attempt)));
      continue; // creating again cannot duplicate it: the id is ours
    }
    let finished: StreamTask;
    try {
      finished = await op.runTask(task);
    } catch (err) {
      const left = await op.find().catch(() => undefined);
      if (left) op.leftBehind(left, err as Error);
      throw err;
    }
    return { object: op.fromTask?.(finished) ?? (await waitVisible(op.find, op.label)), existed: false };
  }
}

/** The found object, when it is this resource's (or adoption was asked for); else a conflict. */
function claim<T>(op: CreateOnce<T>, found: T): T {
  const owner = op.ownerOf(found);
  if (op.adoptExisting || (op.owner !== undefined && owner === op.owner)) return found;
  throw conflict(op.label, op.where, owner, op.owner, op.fix);
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
