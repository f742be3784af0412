import { z } from "zod";
import { defineSection, inStackBranch, PLACEHOLDER, reference } from "../../lifecycle/manifest-section";
import { componentConfigInputsSchema, rowInputsSchema } from "./kind";

/**
 * Secret values taken from stack config instead of the manifest: `{<path in this entry>: <config key>}`,
 * e.g. `{"configuration.parameters.#token": "usersApiToken"}` with
 * `pulumi config set --secret usersApiToken ...`. The value is stored only as a secret.
 */
const secretsSchema = z
  .record(
    z.string().regex(/^(configuration|rows\.\d+\.configuration)(\.[^.]+)+$/, 'must be a path such as "configuration.parameters.#token" or "rows.0.configuration.parameters.#password"'),
    z.string().min(1, "must be a stack config key").describe("Stack config key (set with `pulumi config set --secret`)."),
  )
  .describe("Secret values (keys starting with #) read from stack config: {path in this entry: stack config key}.");

const { variables: _binding, ...configFields } = inStackBranch(componentConfigInputsSchema.shape);
const { variables: _rowBinding, ...rowFields } = rowInputsSchema.shape;

const rowSchema = z
  .object({
    ...rowFields,
    variables: reference("variables", "The variables this row is bound to (e.g. those a shared code row's code uses)").optional(),
  })
  .strict()
  .describe("A configuration row (ComponentConfig rows[] inputs), optionally bound to variables of its own.");

/** keboola.yaml's `configurations`: a ComponentConfig each, bound to variables of the manifest by key. */
export const configurationsSection = defineSection({
  name: "configurations",
  what: "configuration",
  description: "Component configurations, by key.",
  entry: z
    .object({
      ...configFields, // (rows, replaced next, keeps its place)
      rows: z.array(rowSchema, { error: "must be an array of rows" }).default([]).describe("Configuration rows, in order (rowsSortOrder)."),
      variables: reference("variables", "The bound variables").optional(),
      secrets: secretsSchema.optional(),
    })
    .strict()
    .describe("A component configuration with rows (ComponentConfig inputs), optionally bound to variables."),
  references: [
    { field: "variables", target: "variables" },
    { field: "variables", target: "variables", inRows: true },
  ],
  checks: [
    {
      schema: componentConfigInputsSchema,
      toInputs: ({ variables, secrets: _s, rows, ...e }) => ({
        ...e,
        ...(variables ? { variables: { configId: PLACEHOLDER } } : {}),
        ...(Array.isArray(rows) ? { rows: rows.map((r: Record<string, unknown>) => (r && typeof r === "object" && r.variables ? { ...r, variables: { configId: PLACEHOLDER } } : r)) } : {}),
      }),
    },
  ],
});

export type ConfigurationEntry = z.output<typeof configurationsSection.entry>;
