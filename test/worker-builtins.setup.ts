import { isMainThread } from "node:worker_threads";
import Module from "node:module";

// StrykerJS's vitest runner runs the tests in worker threads (pool "threads", which it imposes).
// There Node refuses to load one built-in module, `trace_events` (ERR_TRACE_EVENTS_UNAVAILABLE),
// and Pulumi's closure serializer loads every built-in module to name them when it serializes a
// dynamic resource's provider: the error is lost in the SDK's promises and the resource's URN
// never resolves, so every test running a program under the SDK's mocks hung. Nothing under test
// uses trace_events; an empty stand-in lets the serializer name the others.
if (!isMainThread) {
  type Load = (request: string, parent: unknown, isMain: boolean) => unknown;
  const loader = Module as unknown as { _load: Load };
  const load = loader._load;
  const standIn = {};
  loader._load = function (request, parent, isMain) {
    if (request === "trace_events" || request === "node:trace_events") return standIn;
    return load.call(this, request, parent, isMain);
  };
}
