import type { EmulatorContext } from "../core/context";

// The features of the emulated project: `owner.features` of `GET /v2/storage/tokens/verify`, which
// clients read to decide what a project can do (keboola-as-code writes them to
// `.keboola/project.json`, and its e2e expectations need the list to be non-empty:
// test/cli/*/*/out/.keboola/project.json `"features": [ %A ]`). Real projects differ, so the
// option `projectFeatures` (`--project-feature`, repeatable) chooses others; by default the
// emulator has the features recorded from a real production project in
// keboola/sapi-python-client tests/mocks/token_responses.py.

export const DEFAULT_PROJECT_FEATURES: readonly string[] = ["syrup-jobs-limit-10", "oauth-v3", "queuev2", "storage-types", "allow-ai", "alternat"];

/** The project's features, as tokens/verify lists them. */
export function projectFeatures(ctx: EmulatorContext): string[] {
  return [...(ctx.state.project.features ?? DEFAULT_PROJECT_FEATURES)];
}

/** Whether the project has a feature. */
export function hasProjectFeature(ctx: EmulatorContext, feature: string): boolean {
  return projectFeatures(ctx).includes(feature);
}
