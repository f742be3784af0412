import { isConflict } from "../api/errors";
import type { StreamTask } from "../api/stream";
import { createOnce, waitVisible, type CreateOnce, type Created } from "./create-once";

// Sources and sinks through the one create-once algorithm (create-once.ts): the create answers a
// task; the service answers 409 for an id that exists, also while its create task still runs, so
// an existing object that is not readable yet is waited for.

export interface StreamCreate<T> extends Pick<CreateOnce<T, StreamTask>, "label" | "where" | "find"> {
  // Sources and sinks carry an owner marker and may be taken over: all that applies to them is required.
  owner: string | undefined;
  adoptExisting: boolean;
  fix: string;
  ownerOf(object: T): string | undefined;
  create(): Promise<StreamTask>;
  runTask(task: StreamTask): Promise<StreamTask>;
  /**
   * The object as created, from what we sent and the finished task's outputs, when they say all
   * there is to say (saves reading it back); undefined to read it.
   */
  fromTask?(finished: StreamTask): T | undefined;
  leftBehind(object: T, err: Error): never;
}

export function createStreamObject<T>(op: StreamCreate<T>): Promise<Created<T>> {
  return createOnce<T, StreamTask>({
    ...op,
    create: async () => ({ task: await op.create() }),
    finish: async (task) => {
      const finished = await op.runTask(task);
      return op.fromTask?.(finished) ?? (await waitVisible(op.find, op.label));
    },
    exists: isConflict,
    whenExistsUnreadable: "wait",
  });
}
