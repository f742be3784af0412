import type { EmulatorOptions, ProjectOptions } from "./core/context";
import { startEmulator, type Emulator } from "./server";

// For tests that need two projects on one host (a development and a production project, a token
// of the wrong one): an emulator serving both, with what a test needs of each.

/** What a test needs to reach a project: its id, its name and its master token. */
export interface ProjectAccess {
  id: number;
  name: string;
  token: string;
}

export interface TwoProjects {
  emulator: Emulator;
  /** The first project (the emulator's `token` and `projectId`). */
  a: ProjectAccess;
  /** The second project (the emulator's one entry of `projects`). */
  b: ProjectAccess;
  close(): Promise<void>;
}

/** The options of startTwoProjects: any emulator option but the projects', and each project's own. */
export type TwoProjectsOptions = Omit<EmulatorOptions, "token" | "projectId" | "projectName" | "projects"> & {
  a?: Partial<Omit<ProjectOptions, "features">>;
  b?: Partial<ProjectOptions>;
};

export const PROJECT_A: ProjectAccess = { id: 4242, name: "Project A", token: "project-a-master-token" };
export const PROJECT_B: ProjectAccess = { id: 4343, name: "Project B", token: "project-b-master-token" };

/**
 * Starts an emulator serving two projects, by default PROJECT_A and PROJECT_B (other ids, names or
 * tokens through `a` and `b`; the first project's features are the emulator's `projectFeatures`).
 */
export async function startTwoProjects(options: TwoProjectsOptions = {}): Promise<TwoProjects> {
  const { a: aOptions, b: bOptions, ...rest } = options;
  const a = { ...PROJECT_A, ...aOptions };
  const { features, ...bAccess } = { ...PROJECT_B, ...bOptions };
  const emulator = await startEmulator({
    ...rest,
    token: a.token,
    projectId: a.id,
    projectName: a.name,
    projects: [{ ...bAccess, ...(features ? { features } : {}) }],
  });
  // The projects as the emulator serves them (a state file may have named the first one's id).
  const [first, second] = emulator.projects;
  if (!first || !second) throw new Error("emulator: two projects were declared, fewer are served");
  return {
    emulator,
    a: { id: first.id, name: first.name, token: a.token },
    b: { id: second.id, name: second.name, token: bAccess.token },
    close: () => emulator.close(),
  };
}
