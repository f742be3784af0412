import { existsSync, readFileSync } from "node:fs";
import type { EmulatorOptions, EmulatorState } from "./context";
import { newProjectState, restoredProjects } from "./projects";
import { limitedToken, masterToken, restoredTokens, type TokenRecord } from "./tokens";
import { initialStorageState } from "../storage/state";
import { DEFAULT_PROJECT_FEATURES } from "../storage/project-features";
import { initialStreamState } from "../stream/state";
import { initialQueueState } from "../queue/state";
import { initialEncryptionState } from "../encryption/state";
import { initialSchedulerState } from "../scheduler/state";

// The emulator's state at start: made from the options, or read back from the state file.

/** The first project's tokens as the options give them: the master token and the limited one. */
function commandLineTokens(options: EmulatorOptions, now: string): TokenRecord[] {
  const tokens = [masterToken(options.token, now)];
  if (options.limitedToken) tokens.push(limitedToken(options.limitedToken, now));
  return tokens;
}

export function initialState(options: EmulatorOptions, now: string): EmulatorState {
  const state: EmulatorState = {
    version: 1,
    project: {
      id: options.projectId ?? 4242,
      name: options.projectName ?? "Emulated Project",
      defaultBranchId: 101,
      features: [...(options.projectFeatures ?? DEFAULT_PROJECT_FEATURES)],
    },
    tokens: commandLineTokens(options, now),
    deferred: [],
    counters: {},
    storage: initialStorageState(),
    stream: initialStreamState(),
    queue: initialQueueState(),
    encryption: initialEncryptionState(),
    scheduler: initialSchedulerState(),
  };
  // Only with further projects: a one-project state is what it always was.
  const projects = (options.projects ?? []).map((spec) => newProjectState(spec, state.counters, state.project.defaultBranchId, now));
  return projects.length ? { ...state, projects } : state;
}

/**
 * A state file as save() writes it (the EmulatorState as JSON); one from before the Encryption
 * or the Scheduler API has no part for it.
 */
type SavedState = Omit<EmulatorState, "encryption" | "scheduler"> & Partial<Pick<EmulatorState, "encryption" | "scheduler">>;

export function loadState(options: EmulatorOptions): EmulatorState {
  const now = new Date().toISOString();
  if (!options.stateFile || !existsSync(options.stateFile)) return initialState(options, now);
  // An assertion, and the right tool here: the file is the emulator's own save() output (its
  // state, not a user's input), which it reads back as it wrote it. Checking it would take a
  // schema of every service's state, kept in step with the types it repeats, for files that
  // only a hand edit can break.
  const { projects: savedProjects, ...saved } = JSON.parse(readFileSync(options.stateFile, "utf8")) as SavedState;
  // Tokens come from the command line, not the file, so a restart with a new token works (the
  // tokens created through the API are kept, core/tokens.ts restoredTokens); so do the
  // project's name and features when given. A file from before the Encryption API gets a key now.
  const project = {
    ...saved.project,
    ...(options.projectName ? { name: options.projectName } : {}),
    ...(options.projectFeatures ? { features: [...options.projectFeatures] } : {}),
  };
  const state: EmulatorState = {
    ...saved,
    project,
    tokens: restoredTokens(commandLineTokens(options, now), saved.tokens),
    encryption: saved.encryption ?? initialEncryptionState(),
    scheduler: saved.scheduler ?? initialSchedulerState(),
  };
  // Each further project as declared now, with its data from the file (core/projects.ts).
  const projects = restoredProjects(savedProjects ?? [], options.projects ?? [], state.counters, state.project.defaultBranchId, now);
  return projects.length ? { ...state, projects } : state;
}
