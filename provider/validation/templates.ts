import type * as dynamic from "@pulumi/pulumi/dynamic";
import { isUnknown } from "./check";

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
    const error = await compileError(content);
    if (error) {
      failures.push({
        property: `columns[${i}].template.content`,
        reason: `Column "${String(c.name)}" template is invalid: ${error}. Fix the jsonnet; the globals are Ip(), Body(), BodyStr(), Header(), HeaderStr(), Now().`,
      });
    }
  }
  return failures;
}

async function compileError(content: string): Promise<string | undefined> {
  const { getJsonnetEngine } = await import("../../jsonnet/engine");
  const engine = await getJsonnetEngine();
  const result = await engine.compile(content);
  return result.ok ? undefined : result.error;
}
