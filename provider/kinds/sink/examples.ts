import type * as dynamic from "@pulumi/pulumi/dynamic";
import { KeboolaApiError, asError } from "../../api/errors";
import type { StreamApi, StreamSink, StreamTestResult } from "../../api/stream";
import { canonicalColumn, columnsSchema, type Column } from "../../validation/columns";
import { same } from "../../lifecycle/common";
import type { ResourceContext } from "../../lifecycle/types";
import { isOneOf } from "../../../keboola/json";
import { STREAM_SOURCE_TYPES } from "../../../keboola/stream";
import {
  answeredOutcome,
  compareExample,
  evaluateExample,
  exampleMessage,
  exampleRequest,
  exampleRowsBeforeAfter,
  isOtlpExample,
  parseRefusal,
  sinkExamplesSchema,
  type ExampleOutcome,
  type ExampleRows,
  type ExampleSink,
  type SinkExample,
} from "../../../keboola/stream-examples";

// A sink's examples (sample events with the row each must produce), as the Sink resource uses
// them: evaluated at preview against the new mapping with the service's own rules (keboola/
// stream-examples.ts, the code the emulator's ingestion and test endpoint run), and after a
// deploy posted to the service's test endpoint, whose answer must agree.
//
// Which examples the service has confirmed is kept in state: the Sink's recorded `examples` are
// those its test endpoint confirmed against the recorded mapping. So a confirmation that fails
// leaves the rest recorded as unconfirmed, Pulumi sees the difference and the next `up` posts
// them again, and an `up` with nothing changed posts nothing.

export type SourceType = (typeof STREAM_SOURCE_TYPES)[number];

/** The Sink's `examples` input: an empty list is no examples (one spelling, so refresh shows no diff). */
export const examplesInput = sinkExamplesSchema
  .transform((v) => (v.length ? v : undefined))
  .optional()
  .describe(
    "Sample events with the row each must produce: { payload, headers?, expect } for an HTTP source, { signal, record, headers?, expect } for an OTLP one. " +
      "Checked at preview against the mapping (nothing written) and, after the sink is created or its mapping or examples change, against the service's test endpoint.",
  );

/** What the examples are evaluated against: the sink's mapping and signal filter. */
export interface ExampleMapping {
  columns: readonly Column[];
  allowedSignals?: readonly string[];
}

/** The sink an example is evaluated by: the source's type when known, else the example's own form. */
function exampleSink(sourceType: SourceType | undefined, mapping: ExampleMapping, example: SinkExample): ExampleSink {
  return { sourceType: sourceType ?? (isOtlpExample(example) ? "otlp" : "http"), columns: mapping.columns, ...(mapping.allowedSignals ? { allowedSignals: mapping.allowedSignals } : {}) };
}

/**
 * The type of the sink's source for its examples: what the program declares (a Source of the same
 * program, known before it exists), else the source the service has, else undefined (then each
 * example is evaluated as the kind of event it is, and the create refuses what the source is not).
 */
export async function sourceTypeFor(ctx: ResourceContext, declared: string | undefined, at: { branchId: string; sourceId: string } | undefined): Promise<SourceType | undefined> {
  if (isOneOf(STREAM_SOURCE_TYPES, declared)) return declared;
  if (!at) return undefined;
  const source = await (await ctx.client().stream()).findSource(at.branchId, at.sourceId);
  return isOneOf(STREAM_SOURCE_TYPES, source?.type) ? source.type : undefined;
}

/**
 * Preview: every example evaluated against the new mapping; each mismatch a failure at
 * `examples[i]` naming the column, the expected and the actual value (for a template its error
 * and line). Nothing is sent anywhere.
 */
export function exampleFailures(sourceType: SourceType | undefined, mapping: ExampleMapping, examples: readonly SinkExample[]): dynamic.CheckFailure[] {
  return examples.flatMap((example, i) => {
    const sink = exampleSink(sourceType, mapping, example);
    return compareExample(sink, i, example, evaluateExample(sink, example)).map((m) => ({ property: `examples[${i}]`, reason: m.message }));
  });
}

/** Whether two mappings map every event alike: the same columns and signal filter (the table aside). */
export function sameMapping(a: Partial<ExampleMapping>, b: ExampleMapping): boolean {
  const signals = (s: readonly string[] | undefined) => [...(s ?? [])].sort();
  return same(a.columns?.map(canonicalColumn), b.columns.map(canonicalColumn)) && same(signals(a.allowedSignals), signals(b.allowedSignals));
}

/** The examples among `examples` that are in `confirmed` (deep equality), in `examples`' order. */
function among(examples: readonly SinkExample[], confirmed: readonly SinkExample[]): SinkExample[] {
  return examples.filter((e) => confirmed.some((c) => same(c, e)));
}

/** Examples the service did not confirm: the message says which and why; `confirmed` are those it did. */
export class ExamplesNotConfirmed extends Error {
  constructor(
    message: string,
    readonly confirmed: SinkExample[],
  ) {
    super(message);
  }
}

export interface ConfirmTarget {
  branchId: string;
  sourceId: string;
  sinkId: string;
}

const BUG =
  "The deployed mapping behaves differently from keboola-pulumi's local evaluation of it (which the example passed at preview): " +
  "that is a bug of keboola-pulumi, please report it with this example and the sink's columns.";

/**
 * After a deploy: each example not yet confirmed against this mapping is posted to the source's
 * test endpoint, one request per example, and the sink's row in the answer compared with the
 * expectation. Returns the examples confirmed (all of them), in order; throws ExamplesNotConfirmed
 * listing every difference, with those that were confirmed.
 *
 * The endpoint maps the record through every sink of the source and refuses all of it when any
 * sink cannot map it (api/mapper/source_response.go NewTestResultResponse): a refusal that another
 * sink's mapping explains makes the example impossible to check, and it is reported as such.
 * One call answers all the sinks of the source, but each changed sink posts its own examples: the
 * sinks of one `up` are created and updated in parallel, so no call is sure to see another sink
 * as deployed (chosen here).
 */
export async function confirmExamples(
  stream: StreamApi,
  target: ConfirmTarget,
  mapping: ExampleMapping,
  examples: readonly SinkExample[],
  confirmedBefore: readonly SinkExample[],
): Promise<SinkExample[]> {
  const confirmed = among(examples, confirmedBefore);
  const problems: string[] = [];
  let others: StreamSink[] | undefined;
  const otherSinks = async () => (others ??= (await stream.listSinks(target.branchId, target.sourceId)).sinks.filter((s) => s.sinkId !== target.sinkId));
  for (const [i, example] of examples.entries()) {
    if (confirmed.includes(example)) continue;
    const sink = exampleSink(undefined, mapping, example);
    const local = evaluateExample(sink, example);
    let answer: StreamTestResult;
    try {
      answer = await stream.testSource(target.branchId, target.sourceId, testRequest(example));
    } catch (err) {
      const refusal = err instanceof KeboolaApiError && err.status === 422 ? err.apiMessage : undefined;
      if (refusal === undefined) {
        problems.push(exampleMessage({ example: i, message: `the service's test endpoint could not be asked: ${asError(err).message}` }));
        break; // the service is not answering: the next `up` asks again
      }
      problems.push(exampleMessage({ example: i, message: await refusalProblem(refusal, example, mapping, otherSinks) }));
      continue;
    }
    const outcome = answeredOutcome(target.sinkId, example, answer, mapping.allowedSignals, local.kind === "row" || local.kind === "refused" ? local.varying : []);
    if (!outcome) {
      problems.push(exampleMessage({ example: i, message: `the service's test endpoint answers no row of the sink (its answer lists ${answer.tables.map((t) => `"${t.sinkId}"`).join(", ") || "no sink"}). ${BUG}` }));
      continue;
    }
    const mismatches = compareExample(sink, i, example, outcome);
    if (mismatches.length === 0) {
      confirmed.push(example);
      continue;
    }
    const said = mismatches.map((m) => m.message.replace("the mapping writes", "the service writes")).join("; ");
    problems.push(exampleMessage({ example: i, message: `the service's test endpoint answers otherwise: ${said}${localSays(local, mismatches.map((m) => m.column))}. ${BUG}` }));
  }
  const done = among(examples, confirmed);
  if (problems.length > 0) {
    throw new ExamplesNotConfirmed(`the deployed sink does not confirm ${problems.length === 1 ? "an example" : `${problems.length} examples`} (the next \`pulumi up\` checks again):\n  ${problems.join("\n  ")}`, done);
  }
  return done;
}

/** The request of an example, without a token header it might name (the endpoint drops it from the record anyway). */
function testRequest(example: SinkExample): ReturnType<typeof exampleRequest> {
  const req = exampleRequest(example);
  const { "X-Storageapi-Token": _token, ...headers } = req.headers;
  return { ...req, headers };
}

/** What the local evaluation wrote in the columns the service's answer differs in. */
function localSays(local: ExampleOutcome, columns: ReadonlyArray<string | undefined>): string {
  if (local.kind !== "row") return "";
  const values = columns.flatMap((c) => (c !== undefined && local.row[c] !== undefined && !local.varying.includes(c) ? [`column "${c}" ${JSON.stringify(local.row[c])}`] : []));
  return values.length ? ` (the local evaluation writes ${values.join(", ")})` : "";
}

/** Why the test endpoint refused an example's record: another sink of the source, or this one (a bug of ours). */
async function refusalProblem(message: string, example: SinkExample, mapping: ExampleMapping, otherSinks: () => Promise<StreamSink[]>): Promise<string> {
  const refusal = parseRefusal(message);
  const ours = refusal !== undefined && mapping.columns.some((c) => c.name === refusal.column);
  let blamed: StreamSink | undefined;
  try {
    blamed = (await otherSinks()).find((s) => refusesWith(s, example, message));
  } catch {
    blamed = undefined; // the listing failed: the refusal is reported as it is
  }
  if (blamed) {
    return (
      `cannot be checked against the service: its test endpoint maps a record through every sink of the source at once, and sink "${blamed.sinkId}" refuses this one (${message}). ` +
      `Give the example what that sink needs too, or that sink's column a defaultValue (or a default in its template).`
    );
  }
  if (!ours) return `the service's test endpoint refuses the record (${message}), for a column this sink does not have: another sink of the source refuses it. Give the example what that sink needs too.`;
  return `the service's test endpoint refuses the record (${message}), but the local evaluation writes a row. ${BUG}`;
}

/** Whether another sink of the source, evaluated locally, refuses the example's record with this very message. */
function refusesWith(other: StreamSink, example: SinkExample, message: string): boolean {
  const columns = other.table?.mapping.columns;
  if (!columns) return false;
  const outcome = evaluateExample(exampleSink(undefined, { columns, ...(other.allowedSignals ? { allowedSignals: other.allowedSignals } : {}) }, example), example);
  return outcome.kind === "refused" && outcome.failures.some((f) => f.message === message);
}

/** A sink's inputs (or recorded state) as far as its examples need them. */
export interface SinkExampleInputs {
  columns?: unknown;
  allowedSignals?: unknown;
  examples?: unknown;
}

function mappingOf(props: SinkExampleInputs): ExampleMapping | undefined {
  const parsed = columnsSchema.safeParse(props.columns);
  if (!parsed.success) return undefined;
  const columns = parsed.data.map(canonicalColumn);
  const signals = Array.isArray(props.allowedSignals) ? props.allowedSignals.filter((s): s is string => typeof s === "string") : undefined;
  return { columns, ...(signals?.length ? { allowedSignals: signals } : {}) };
}

/**
 * For the review of a change: each example of the new inputs (else of the old ones) with the row
 * the sink writes for it under the old mapping (`before`, undefined for a new sink) and the new
 * one (`after`), and whether it changed (values of varying columns, a uuid or the time, aside).
 * `sourceType`: the source's type when known (else each example is taken as the event it is).
 * Local and synchronous: nothing is sent anywhere.
 */
export function sinkExampleRows(sourceType: string | undefined, olds: SinkExampleInputs | undefined, news: SinkExampleInputs): ExampleRows[] {
  const after = mappingOf(news);
  if (!after) return [];
  const parsed = sinkExamplesSchema.safeParse(news.examples ?? olds?.examples ?? []);
  if (!parsed.success) return [];
  const type = isOneOf(STREAM_SOURCE_TYPES, sourceType) ? sourceType : undefined;
  const before = olds ? mappingOf(olds) : undefined;
  // One sink per example form, so each example is evaluated as its source's (or its own) kind.
  return parsed.data.map((example, index) => {
    const [row] = exampleRowsBeforeAfter(before && exampleSink(type, before, example), exampleSink(type, after, example), [example]);
    return { ...row!, index };
  });
}
