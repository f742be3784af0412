import type { EmulatorState, ProjectOptions, ProjectState } from "./context";
import { nextCounter } from "./counters";
import { masterToken, restoredTokens } from "./tokens";
import { initialStorageState } from "../storage/state";
import { DEFAULT_PROJECT_FEATURES } from "../storage/project-features";
import { initialStreamState } from "../stream/state";
import { initialQueueState } from "../queue/state";
import { initialSchedulerState } from "../scheduler/state";

// The stack's further projects (EmulatorOptions.projects): their states as first made and as
// restored from a state file, and the rules that keep them apart (ids and tokens unique).

/** Every project of the state, the first one (the top level) first. */
export function projectStates(state: EmulatorState): ProjectState[] {
  return [state, ...(state.projects ?? [])];
}

/** The project's master token as the command line gave it (not one created through the API). */
function declaredMaster(project: ProjectState) {
  return project.tokens.find((t) => t.isMasterToken && t.creator === undefined);
}

/** The secret of the project's master token. */
export function masterTokenOf(project: ProjectState): string | undefined {
  return declaredMaster(project)?.token;
}

/**
 * A new further project: its default branch and master token take ids of the stack's sequences
 * (storage/branches.ts numbers development branches from the same `storage.branchId`, and
 * storage/tokens.ts created tokens from `storage.token`), so no branch or token id repeats on
 * the host, as on a real stack.
 */
export function newProjectState(spec: ProjectOptions, counters: Record<string, number>, firstDefaultBranchId: number, now: string): ProjectState {
  const defaultBranchId = nextCounter(counters, "storage.branchId", firstDefaultBranchId + 1);
  const tokenId = String(nextCounter(counters, "storage.token", 2001));
  return {
    project: { id: spec.id, name: spec.name, defaultBranchId, features: [...(spec.features ?? DEFAULT_PROJECT_FEATURES)] },
    tokens: [masterToken(spec.token, now, tokenId)],
    deferred: [],
    storage: initialStorageState(),
    stream: initialStreamState(),
    queue: initialQueueState(),
    scheduler: initialSchedulerState(),
  };
}

/**
 * A further project restored from a state file: its data as saved, its name, master token (same
 * id, the declared secret) and features as declared now, and the tokens created through the API
 * kept, as the first project's are (core/tokens.ts restoredTokens).
 */
function restoredProject(saved: ProjectState, spec: ProjectOptions, counters: Record<string, number>, now: string): ProjectState {
  const masterId = declaredMaster(saved)?.id ?? String(nextCounter(counters, "storage.token", 2001));
  const features = spec.features ? [...spec.features] : saved.project.features;
  return {
    ...saved,
    project: { ...saved.project, name: spec.name, ...(features ? { features } : {}) },
    tokens: restoredTokens([masterToken(spec.token, now, masterId)], saved.tokens),
  };
}

/**
 * The further projects after a start from a state file: each declared one restored by its id or
 * made new, then those of the file that are no longer declared, kept as they were saved (their
 * data is not thrown away, and their saved master tokens still work).
 */
export function restoredProjects(saved: readonly ProjectState[], declared: readonly ProjectOptions[], counters: Record<string, number>, firstDefaultBranchId: number, now: string): ProjectState[] {
  const byId = new Map(saved.map((p) => [p.project.id, p]));
  const out = declared.map((spec) => {
    const found = byId.get(spec.id);
    return found ? restoredProject(found, spec, counters, now) : newProjectState(spec, counters, firstDefaultBranchId, now);
  });
  const ids = new Set(declared.map((p) => p.id));
  return [...out, ...saved.filter((p) => !ids.has(p.project.id))];
}

/** Projects that cannot be served together: two with one id, or a token of two projects. */
export class ProjectsConflict extends Error {}

/** Why the projects cannot be served together (an id or a token of two projects), or undefined. */
export function projectsConflict(state: EmulatorState): string | undefined {
  const seen = new Map<number, ProjectState>();
  const owners = new Map<string, number>();
  for (const p of projectStates(state)) {
    const id = p.project.id;
    if (seen.has(id)) return `project ${id} is declared twice: every project needs its own id`;
    seen.set(id, p);
    for (const t of p.tokens) {
      if (!t.token) continue;
      const other = owners.get(t.token);
      // The token names its project (core/dispatch.ts), so one secret cannot belong to two.
      if (other !== undefined && other !== id) return `project ${id} has a token of project ${other}: every project needs its own master token`;
      if (other === undefined) owners.set(t.token, id);
    }
  }
  return undefined;
}
