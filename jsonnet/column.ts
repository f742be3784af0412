/**
 * Template column value and error texts, as the Keboola Stream service produces them.
 *
 * Sources (keboola/keboola-as-code):
 *  - internal/pkg/service/stream/mapping/table/column/renderer.go CSVValue (Template case): the value
 *    is the compact JSON of the result; with rawString and a result starting with '"', the JSON
 *    string is decoded (no quotes). Non-string results stay JSON even with rawString (42 -> "42").
 *  - internal/pkg/service/stream/api/mapper/sink_request.go: invalid template at sink create/update
 *    -> 400 badRequest `column "<name>" template is invalid: <go-jsonnet static error>`.
 *  - internal/pkg/service/stream/api/mapper/source_response.go (POST .../sources/{id}/test):
 *    evaluation error -> 422 unprocessableContent `Invalid value for column "<name>": <error>`.
 *  - internal/pkg/utils/errors/format.go + strhelper.AsSentence: API messages get the first letter
 *    upper-cased and a "." appended when they end with [a-zA-Z0-9'"]; recorded in
 *    test/stream/api/sink/create-012-invalid-jsonnet-template:
 *    "Column \"jsonnet\" template is invalid: 1:1-8 Unknown variable: Invalid."
 */
import type { JsonnetEngine, TemplateContext } from "./engine";

/** strhelper.AsSentence */
export function asSentence(msg: string): string {
  const out = msg.replace(/ +$/, "");
  if (out.length === 0) return msg;
  const sentence = out[0]!.toUpperCase() + out.slice(1);
  return /[a-zA-Z0-9'"]$/.test(sentence) ? sentence + "." : sentence;
}

/** CSV value of a template column from the evaluation's compact JSON. */
export function templateColumnValue(json: string, rawString = false): string {
  if (rawString && json.startsWith('"')) {
    try {
      const decoded: unknown = JSON.parse(json);
      if (typeof decoded === "string") return decoded;
    } catch {
      // as the service: keep the JSON text when it does not decode
    }
  }
  return json;
}

/** Error text (before AsSentence) for an invalid template at sink create/update. */
export function templateInvalidError(columnName: string, compileError: string): string {
  return `column "${columnName}" template is invalid: ${compileError}`;
}

/** API message (400 stream.api.badRequest) for an invalid template at sink create/update. */
export function templateInvalidMessage(columnName: string, compileError: string): string {
  return asSentence(templateInvalidError(columnName, compileError));
}

/** API message (422 stream.api.unprocessableContent) of the source test endpoint for a failing column. */
export function invalidColumnValueMessage(columnName: string, error: string): string {
  return asSentence(`Invalid value for column "${columnName}": ${error}`);
}

export interface TemplateColumn {
  name: string;
  rawString?: boolean;
  template: { language: string; content: string };
}

/** Renders one template column for one record: the CSV value, or the service's error text for the column. */
export function renderTemplateColumn(
  engine: JsonnetEngine,
  column: TemplateColumn,
  ctx: TemplateContext,
): { ok: true; value: string } | { ok: false; error: string } {
  if (column.template.language !== "jsonnet") {
    return { ok: false, error: `unsupported language "${column.template.language}", only "jsonnet" is supported` };
  }
  const res = engine.evaluate(column.template.content, ctx);
  return res.ok ? { ok: true, value: templateColumnValue(res.json, column.rawString ?? false) } : res;
}
