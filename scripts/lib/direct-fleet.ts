import { KeboolaClient } from "../../provider/api/client";

// The bound a deployment of the fleet is measured against: a direct script making the writes the
// provider makes for it, with the provider's own API client (its retries, its task polling), at the
// same parallelism as `pulumi up --parallel N`, in the order the dependencies allow (a source, then
// its sinks, then each sink's settings), and nothing else: no engine, no state, no checks. What
// `up` takes beyond it is the price of Pulumi plus the provider's checks and bookkeeping.

/** Runs `jobs` with at most `parallel` at a time; each job may add more (its dependents). */
async function pool(parallel: number, first: Array<() => Promise<Array<() => Promise<unknown>>>>): Promise<void> {
  const queue = [...first];
  let running = 0;
  await new Promise<void>((resolve, reject) => {
    const next = () => {
      if (queue.length === 0 && running === 0) return resolve();
      while (running < parallel && queue.length > 0) {
        const job = queue.shift()!;
        running++;
        job().then(
          (more) => {
            running--;
            queue.push(...(more as Array<() => Promise<Array<() => Promise<unknown>>>>));
            next();
          },
          reject,
        );
      }
    };
    next();
  });
}

export interface FleetShape {
  sources: number;
  sinks: number;
  /** A prefix of the ids, so the script's objects never meet the stack's. */
  prefix: string;
}

/** Creates the fleet directly; answers the seconds it took. Deletes it afterwards (not timed). */
export async function directFleet(host: string, token: string, shape: FleetShape, parallel: number): Promise<number> {
  const client = new KeboolaClient({ host, token, taskTimeoutSeconds: 600 });
  const stream = await client.stream();
  const columns = [
    { type: "uuid", name: "id" },
    { type: "datetime", name: "at" },
    { type: "body", name: "body" },
  ];
  const started = Date.now();
  type Job = () => Promise<Job[]>;
  const settings = (sourceId: string, sinkId: string): Job => async () => {
    await stream.runTask(await stream.patchSettings("default", sourceId, sinkId, [{ key: "storage.level.staging.upload.trigger.count", value: 1000 }], "Updated by the direct script."), "settings");
    return [];
  };
  const sink = (sourceId: string, i: number, j: number): Job => async () => {
    const sinkId = `out-${j}`;
    await stream.runTask(
      await stream.createSink("default", sourceId, { sinkId, type: "table", name: `Out ${j}`, description: "", table: { type: "keboola", tableId: `in.c-direct.${shape.prefix}${i}_${j}`, mapping: { columns } } }),
      "sink",
    );
    return [settings(sourceId, sinkId)];
  };
  const source = (i: number): Job => async () => {
    const sourceId = `${shape.prefix}${i}`;
    await stream.runTask(await stream.createSource("default", { sourceId, type: "http", name: `Direct ${i}`, description: "" }), "source");
    return Array.from({ length: shape.sinks }, (_, j) => sink(sourceId, i, j));
  };
  await pool(parallel, Array.from({ length: shape.sources }, (_, i) => source(i)));
  const seconds = (Date.now() - started) / 1000;
  await pool(parallel, Array.from({ length: shape.sources }, (_, i) => async () => {
    await stream.runTask(await stream.deleteSource("default", `${shape.prefix}${i}`), "delete");
    return [];
  }));
  return seconds;
}
