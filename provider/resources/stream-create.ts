import { KeboolaApiError, KeboolaNetworkError, isConflict } from "../api/errors";
import type { StreamTask } from "../api/stream";

// Creating a Stream object exactly once. Ids are chosen by us, so a repeated create cannot make a
// duplicate; the danger is the opposite: losing track of an object our first request created.
// After an ambiguous failure the object is read by id; when it is not there yet, the create is
// sent again, and a 409 or 5xx then means our first request is still being processed.

export interface CreateOnce<T> {
  label: string;
  find(): Promise<T | undefined>;
  create(): Promise<StreamTask>;
  runTask(task: StreamTask): Promise<unknown>;
  /** Called when a step failed but the object exists: throw so Pulumi keeps tracking it. */
  leftBehind(object: T, err: Error): never;
}

export async function createOnce<T>(op: CreateOnce<T>): Promise<T> {
  let task: StreamTask | undefined;
  try {
    task = await op.create();
  } catch (err) {
    if (!(err instanceof KeboolaNetworkError) || !err.ambiguous) throw err;
    if (!(await op.find())) {
      try {
        task = await op.create();
      } catch (again) {
        const inFlight = isConflict(again) || (again instanceof KeboolaApiError && again.status >= 500) || again instanceof KeboolaNetworkError;
        if (!inFlight) throw again;
      }
    }
  }
  if (task) {
    try {
      await op.runTask(task);
    } catch (err) {
      const left = await op.find().catch(() => undefined);
      if (left) op.leftBehind(left, err as Error);
      throw err;
    }
  }
  return waitVisible(op.find, op.label);
}

/** Polls until the object can be read: after its task, or while our first create is in flight. */
export async function waitVisible<T>(find: () => Promise<T | undefined>, label: string): Promise<T> {
  for (let i = 0, delay = 50; ; i++, delay = Math.min(delay * 2, 1000)) {
    const found = await find();
    if (found) return found;
    if (i >= 12) throw new Error(`${label} was created but cannot be read back`);
    await new Promise((r) => setTimeout(r, delay));
  }
}
