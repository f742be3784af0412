import { z } from "zod";
import type { JsonValue } from "../../keboola/json";

// What `pulumi preview --json` prints, as far as the review reads it. The shape is Pulumi's
// PreviewDigest (pulumi pkg/display/json.go: `config`, `steps`, `diagnostics`, `duration`,
// `changeSummary`), each step a PreviewStep (`op`, `urn`, `provider`, `oldState`, `newState`,
// `diffReasons`, `replaceReasons`, `detailedDiff`) whose states are apitype.ResourceV3
// (`urn`, `type`, `id`, `inputs`, `outputs`, `dependencies`, `propertyDependencies`,
// `deletedWith`, ...), written by pkg/backend/display/json.go ShowPreviewDigest. Captured from
// the pinned CLI against the emulator (test/review/fixtures/), what it shows of our dynamic
// resources:
// - unchanged resources are left out unless `--show-sames` is given (the stack itself is always
//   there); a replacement is one `replace` step unless `--show-replacement-steps` adds its
//   `create-replacement` and `delete-replaced`;
// - dynamic providers return no detailed diff: `diffReasons` and `detailedDiff` are empty, and
//   only `replaceReasons` (the provider's `replaces`) is set; the review compares the inputs itself;
// - secrets are the string `[secret]` (MassageSecrets), at the place Pulumi keeps them secret;
// - values not known before `up` are the string `04da6b54-80e4-46f7-96ec-b56ff0331ba9`
//   (pkg/resource/stack/deployment.go computedValuePlaceholder);
// - `newState.outputs` is empty at preview, except for a replacement's new object (its inputs).

const jsonValue: z.ZodType<JsonValue> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]));

const state = z.object({
  urn: z.string(),
  type: z.string(),
  id: z.string().optional(),
  inputs: z.record(z.string(), jsonValue).optional(),
  outputs: z.record(z.string(), jsonValue).optional(),
  dependencies: z.array(z.string()).optional(),
  propertyDependencies: z.record(z.string(), z.array(z.string())).optional(),
  deletedWith: z.string().optional(),
});

const step = z.object({
  op: z.string(),
  urn: z.string(),
  oldState: state.optional(),
  newState: state.optional(),
  replaceReasons: z.array(z.string()).nullish(),
  diffReasons: z.array(z.string()).nullish(),
});

const diagnostic = z.object({
  urn: z.string().optional(),
  message: z.string().optional(),
  severity: z.string().optional(),
});

const digest = z.object({
  steps: z.array(step).optional(),
  diagnostics: z.array(diagnostic).optional(),
  changeSummary: z.record(z.string(), z.number()).optional(),
});

export type PreviewState = z.infer<typeof state>;
export type PreviewStep = z.infer<typeof step>;
export type PreviewDigest = z.infer<typeof digest>;

/** Input that is not what `pulumi preview --json` prints: the CLI exits 2 with this message. */
export class ReviewInputError extends Error {
  override readonly name = "ReviewInputError";
}

const HOW = "give the output of `pulumi preview --json` (a file, or `-` for standard input)";

/** Parses the text of `pulumi preview --json`; `source` names it in errors. */
export function readPreview(text: string, source: string): PreviewDigest {
  if (text.trim() === "") throw new ReviewInputError(`${source} is empty: ${HOW}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    const firstLine = text.trimStart().split("\n", 1)[0].slice(0, 80);
    throw new ReviewInputError(`${source} is not JSON (${err instanceof Error ? err.message : String(err)}; it starts with "${firstLine}"): ${HOW}, not the text output of \`pulumi preview\``);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !("steps" in parsed || "changeSummary" in parsed || "diagnostics" in parsed)) {
    throw new ReviewInputError(`${source} is JSON but not a preview: it has none of "steps", "changeSummary", "diagnostics" (${HOW}; \`pulumi stack export\` and \`pulumi up --json\` print something else)`);
  }
  const result = digest.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ReviewInputError(`${source} is not a preview as \`pulumi preview --json\` prints it: ${issue.path.join(".") || "(top)"}: ${issue.message}`);
  }
  return result.data;
}
