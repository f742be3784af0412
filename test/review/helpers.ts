import * as fs from "node:fs";
import * as path from "node:path";

// The previews the review's tests read: real `pulumi preview --json` output captured by
// scripts/review-fixtures.ts (see test/review/fixtures/README.md), and the golden reviews.

export const FIXTURES = path.join(__dirname, "fixtures");
export const GOLDEN = path.join(__dirname, "golden");

export type Fixture =
  | "quickstart-change"
  | "quickstart-change-plain"
  | "quickstart-change-steps"
  | "quickstart-first"
  | "secret-changed"
  | "cipher-changed"
  | "column-refused"
  | "flows-change";

export function fixtureText(name: Fixture): string {
  return fs.readFileSync(path.join(FIXTURES, `${name}.json`), "utf8");
}

/** A fixture as a mutable object, for a test that changes one thing of a real preview. */
export function fixture(name: Fixture): PreviewJson {
  return JSON.parse(fixtureText(name)) as PreviewJson;
}

export interface StateJson {
  urn: string;
  type: string;
  id?: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  propertyDependencies?: Record<string, string[]>;
  dependencies?: string[];
  [key: string]: unknown;
}

export interface StepJson {
  op: string;
  urn: string;
  oldState?: StateJson;
  newState?: StateJson;
  [key: string]: unknown;
}

export interface PreviewJson {
  steps: StepJson[];
  changeSummary?: Record<string, number>;
  [key: string]: unknown;
}

export function stepOf(preview: PreviewJson, name: string): StepJson {
  const step = preview.steps.find((s) => s.urn.endsWith(`::${name}`));
  if (!step) throw new Error(`no step of ${name}`);
  return step;
}

export { mermaidOf } from "../../scripts/lib/mermaid-block";
