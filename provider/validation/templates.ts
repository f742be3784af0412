import { isUnknown } from "./check";
import { isRecord } from "../../keboola/json";
import { failingGlobalCalls } from "../../jsonnet/calls";
import { invalidColumnValueMessage, templateInvalidMessage } from "../../jsonnet/column";
import { getJsonnetEngine } from "../../jsonnet/engine";
import type { CheckFailure } from "./messages";

// Template columns are compiled at check (preview), with the service's template globals, so a
// broken template is reported with its line and column before anything is written. Calls of the
// globals that fail for every record (wrong number or type of arguments) pass the service's own
// check but refuse every record later, so they are refused here too, with the service's text.

export async function templateFailures(columns: unknown[]): Promise<CheckFailure[]> {
  const failures: CheckFailure[] = [];
  for (const [i, col] of columns.entries()) {
    if (!isRecord(col) || col.type !== "template") continue;
    const content = isRecord(col.template) ? col.template.content : undefined;
    if (typeof content !== "string" || isUnknown(content) || content === "") continue;
    const error = compileError(content);
    if (error) {
      failures.push({
        property: `columns[${i}].template.content`,
        reason: `${templateInvalidMessage(String(col.name), error)} Fix the jsonnet; the template globals are Ip(), Body(), BodyStr(), Header(), HeaderStr(), Now().`,
      });
      continue;
    }
    for (const call of failingGlobalCalls(getJsonnetEngine(), content)) {
      failures.push({
        property: `columns[${i}].template.content`,
        reason:
          `${call.call} at line ${call.line}, column ${call.column} cannot succeed: the service accepts the sink, ` +
          `then refuses every record that evaluates it (${invalidColumnValueMessage(String(col.name), call.error)}). Fix: ${call.fix}.`,
      });
    }
  }
  return failures;
}

// The engine (WebAssembly) loads on the first template only: importing it is cheap.
function compileError(content: string): string | undefined {
  const result = getJsonnetEngine().compile(content);
  return result.ok ? undefined : result.error;
}
