// The job runner's rule for configuration variables, as the provider's checks and the emulator's
// queue both apply it.

/**
 * The declared variables that a job's values leave without a value. The job runner renders a
 * bound configuration with one set of values (inline variableValuesData when not empty, else the
 * job's variableValuesId row, else the configuration's variables_values_id row) and requires a
 * value for every variable the variables configuration declares, failing the job with
 * `No value provided for variable "<name>".` (keboola/configuration-variables-resolver,
 * src/VariablesResolver/ConfigurationVariablesResolver.php, loadVariables).
 */
export function missingValues(declared: ReadonlyArray<{ name: string }>, given: Iterable<string>): string[] {
  const names = new Set(given);
  return declared.map((d) => d.name).filter((n) => !names.has(n));
}

/** The job runner's message for the first declared variable without a value. */
export const noValueMessage = (name: string) => `No value provided for variable "${name}".`;
