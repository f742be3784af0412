import type * as dynamic from "@pulumi/pulumi/dynamic";
import { isUnknown } from "./check";
import { templateInvalidMessage } from "../../jsonnet/column";
import { getJsonnetEngine } from "../../jsonnet/engine";

// Template columns are compiled at check (preview), with the service's template globals, so a
// broken template is reported with its line and column before anything is written.

interface TemplateLike {
  type?: unknown;
  name?: unknown;
  template?: { content?: unknown };
}

export async function templateFailures(columns: unknown[]): Promise<dynamic.CheckFailure[]> {
  const failures: dynamic.CheckFailure[] = [];
  for (const [i, col] of columns.entries()) {
    const c = col as TemplateLike;
    const content = c?.template?.content;
    if (c?.type !== "template" || typeof content !== "string" || isUnknown(content) || content === "") continue;
    const error = compileError(content);
    if (error) {
      failures.push({
        property: `columns[${i}].template.content`,
        reason: `${templateInvalidMessage(String(c.name), error)} Fix the jsonnet; the template globals are Ip(), Body(), BodyStr(), Header(), HeaderStr(), Now().`,
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
