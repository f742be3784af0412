import { renameSync, writeFileSync } from "node:fs";
import type { JsonValue } from "../../keboola/json";
import type { Deferred, EmulatorContext, EmulatorState, ProjectState, ServiceUrls, StackShared } from "./context";
import { nextCounter } from "./counters";
import type { FaultOptions } from "./faults";
import { projectStates } from "./projects";
import { seededRandom } from "./random";
import { tokenBySecret } from "./tokens";

// The emulated stack: one context a project (each sees its own state only) over the mechanisms
// every project shares, as the projects of a real stack share its host, its clock, its id
// sequences and its queue of work: the counters, the emulated clock, the generator, the state
// file, the faults, and the deferred operations, which complete across projects in time order.

type DeferredHandler = (args: JsonValue, deferred: Deferred) => void;

export interface StackSetup {
  state: EmulatorState;
  options: EmulatorContext["options"];
  baseUrl: () => string;
  urls: () => ServiceUrls;
  faults: () => FaultOptions;
}

export interface Stack {
  readonly shared: StackShared;
  /** One context a project, in the order of projectStates (the first project's first). */
  readonly contexts: readonly EmulatorContext[];
  /** Runs every due deferred operation of every project; true when any ran. */
  settle(): boolean;
  save(): void;
  now(): number;
}

export function createStack(setup: StackSetup): Stack {
  const { state, options } = setup;
  const shared: StackShared = {
    get encryption() {
      return state.encryption;
    },
  };
  // Seeded for repeatable runs; a restart from a state file continues with another sequence, so
  // secrets generated after the restart never repeat those generated before it.
  const random = seededRandom((options.seed ?? 7) + Object.values(state.counters).reduce((a, b) => a + b, 0));
  const now = (): number => Date.now() + (state.clockOffsetMs ?? 0);
  const nextId = (counter: string, start = 1): number => nextCounter(state.counters, counter, start);
  const handlers = new Map<ProjectState, Map<string, DeferredHandler>>();

  const settle = (): boolean => {
    const at = now();
    let ran = false;
    for (;;) {
      // The earliest due operation of any project; of equal times, the first one found (a
      // project's own in the order it deferred them).
      let due: { project: ProjectState; deferred: Deferred } | undefined;
      for (const project of projectStates(state)) {
        for (const d of project.deferred) if (d.at <= at && (!due || d.at < due.deferred.at)) due = { project, deferred: d };
      }
      if (!due) return ran;
      ran = true;
      const { project, deferred } = due;
      project.deferred.splice(project.deferred.indexOf(deferred), 1);
      const handler = handlers.get(project)?.get(deferred.op);
      if (!handler) throw new Error(`emulator: no handler for deferred operation ${deferred.op} in project ${project.project.id}`);
      handler(deferred.args, deferred);
    }
  };

  const save = (): void => {
    if (!options.stateFile) return;
    const tmp = `${options.stateFile}.tmp`;
    writeFileSync(tmp, JSON.stringify(state));
    renameSync(tmp, options.stateFile);
  };

  const contextOf = (project: ProjectState): EmulatorContext => {
    const own = new Map<string, DeferredHandler>();
    handlers.set(project, own);
    const ctx: EmulatorContext = {
      state: project,
      stack: shared,
      options,
      baseUrl: setup.baseUrl,
      urls: setup.urls,
      random,
      now,
      nextId,
      defer(op, args, delayMs = options.taskDurationMs) {
        const d: Deferred = { id: `${op}:${nextId("deferred")}`, at: now() + delayMs, op, args };
        project.deferred.push(d);
        return d;
      },
      onDeferred(op, handler) {
        own.set(op, handler);
      },
      settle,
      tokenOf(c) {
        const header = c.req.header("X-StorageApi-Token");
        // An expired token no longer authenticates (core/tokens.ts isExpired).
        return header ? tokenBySecret(project.tokens, header, now()) : undefined;
      },
      save,
      faults: setup.faults,
    };
    return ctx;
  };

  return { shared, contexts: projectStates(state).map(contextOf), settle, save, now };
}
