import { editDistance } from "../../keboola/edit-distance";
import { isJsonObject, type JsonObject, type JsonValue } from "../../keboola/json";

// What a job's component does with the configuration it gets. The emulator runs no component
// image: a component is assumed to succeed, unless it is one the emulator knows the behaviour of
// (below). Each failure is what the job runner makes of the component's exit (keboola/docker-bundle
// src/Docker/Container.php `handleContainerFailure`: exit code 1 is a user error whose message is
// the component's error output, any other code an application error; keboola/job-runner
// src/Helper/ExceptionConverter.php with keboola/api-error-control ExceptionTransformer: the job's
// `result.message` is the user error's message, or "Internal Server Error occurred." for an
// application error).

/**
 * What a job's component got: its configuration, rows and state, `#` values decrypted (jobs.ts
 * builds them, the component runs on them).
 */
export interface JobInputs {
  configuration: JsonObject;
  state: JsonObject;
  rows: Array<{ id: string; configuration: JsonObject; state: JsonObject }>;
}

export interface ComponentFailure {
  type: "user" | "application";
  message: string;
}

/** The job result message of an application error (api-error-control hides the cause). */
export const APPLICATION_ERROR_MESSAGE = "Internal Server Error occurred.";

/**
 * `array_replace_recursive(configuration, row)`: how the runner gives a row's job its
 * configuration (objects merged key by key, anything else replaced).
 */
function mergeRow(base: JsonObject, row: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(row)) {
    const prev = out[key];
    out[key] = isJsonObject(prev) && isJsonObject(value) ? mergeRow(prev, value) : value;
  }
  return out;
}

// ---- keboola.runner-config-test ---------------------------------------------------------------
// Keboola's component for testing the runner (keboola/runner-config-test, src/Component.php,
// src/ConfigDefinition.php, src/Config.php; its tests tests/functional/{user-error,
// application-error,invalid-configuration}): it does what `parameters.operation` says. php-component
// writes a user error's message to the error output as one line and exits 1; any other exception
// exits 2.

const RUNNER_CONFIG_TEST = "keboola.runner-config-test";

/** ConfigDefinition: the operations the configuration may name. */
const OPERATIONS = [
  "application-error",
  "create-result",
  "create-state",
  "child-jobs",
  "dump-config",
  "dump-env",
  "list",
  "sleep",
  "unsafe-dump-config",
  "user-error",
  "whoami",
  "print-logs",
];

const userError = (line: string): ComponentFailure => ({ type: "user", message: `${line}\n` });

function runnerConfigTest(configuration: JsonObject): ComponentFailure | undefined {
  const parameters: JsonValue | undefined = configuration.parameters;
  const operation = isJsonObject(parameters) ? parameters.operation : undefined;
  if (operation !== undefined && operation !== null && !OPERATIONS.includes(String(operation))) {
    // The configuration definition refuses it before the component runs (a user error).
    return userError(`Invalid configuration for path "root.parameters.operation": Allowed operations are: ${OPERATIONS.join(", ")}`);
  }
  if (typeof operation !== "string") return userError('Invalid configuration: Key "parameters.operation" does not exist');
  if (operation === "user-error") return userError("This is a user error.");
  if (operation === "application-error") return { type: "application", message: APPLICATION_ERROR_MESSAGE };
  return undefined;
}

const BEHAVIOURS: Record<string, (configuration: JsonObject) => ComponentFailure | undefined> = {
  [RUNNER_CONFIG_TEST]: runnerConfigTest,
};

// ---- The runner's own check -------------------------------------------------------------------
// Before any component runs, the job runner reads the configuration through docker-bundle's
// container definition (keboola/docker-bundle src/Docker/Configuration/Container.php: root node
// "container" with the children below, extra keys not ignored), and Symfony Config refuses an
// unknown key (symfony/config Definition/ArrayNode.php `normalizeValue`: the message below, with
// "Did you mean" for a proposal at a Levenshtein distance under 3, else the sorted proposals).
// keboola-sdk-go pkg/keboola/queue_api_test.go TestQueueApiCalls runs a job of a configuration
// `{"foo": "bar"}` and expects its error to contain `Unrecognized option "foo" under "container"`.

const CONTAINER_OPTIONS = [
  "action",
  "artifacts",
  "authorization",
  "image_parameters",
  "parameters",
  "processors",
  "runtime",
  "shared_code_id",
  "shared_code_row_ids",
  "storage",
  "variables_id",
  "variables_values_id",
];

/** Symfony's refusal of keys the container definition does not have, or undefined. */
export function containerProblem(configuration: JsonObject): string | undefined {
  const extra = Object.keys(configuration).filter((k) => !CONTAINER_OPTIONS.includes(k));
  if (extra.length === 0) return undefined;
  const guesses = new Map<string, number>();
  for (const subject of extra) {
    let min = Infinity;
    for (const proposal of CONTAINER_OPTIONS) {
      const distance = editDistance(subject, proposal); // PHP's levenshtein: case counts
      if (distance <= min && distance < 3) {
        guesses.set(proposal, distance);
        min = distance;
      }
    }
  }
  const head = `Unrecognized option${extra.length === 1 ? "" : "s"} "${extra.join(", ")}" under "container"`;
  if (guesses.size) return `${head}. Did you mean "${[...guesses.entries()].sort((x, y) => x[1] - y[1]).map(([k]) => k).join('", "')}"?`;
  return `${head}. Available options are "${CONTAINER_OPTIONS.join('", "')}".`;
}

/**
 * Runs the component on its inputs: the configuration, or each row on the configuration merged
 * with it (the first failing one fails the job). Undefined: the component succeeded.
 */
export function runComponent(componentId: string, inputs: JobInputs): ComponentFailure | undefined {
  for (const configuration of [inputs.configuration, ...inputs.rows.map((r) => mergeRow(inputs.configuration, r.configuration))]) {
    const problem = containerProblem(configuration);
    if (problem) return { type: "user", message: problem };
  }
  const behaviour = BEHAVIOURS[componentId];
  if (!behaviour) return undefined;
  if (inputs.rows.length === 0) return behaviour(inputs.configuration);
  for (const row of inputs.rows) {
    const failure = behaviour(mergeRow(inputs.configuration, row.configuration));
    if (failure) return failure;
  }
  return undefined;
}
