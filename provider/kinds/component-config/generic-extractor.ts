import { z } from "zod";
import { pathOf } from "../../validation/paths";
import { distance } from "../../validation/messages";
import { isOneOf, isRecord } from "../../../keboola/json";

// Typed checks of the Generic Extractor (`ex-generic-v2`) configuration: `parameters.api.pagination`
// and the jobs in `parameters.config.jobs`, as the extractor (keboola/juicer) reads them.
//
// - offset: `limit` (required, positive integer), `limitParam` (default "limit"), `offsetParam`
//   (default "offset"), `firstPageParams` (default true), `offsetFromJob` (default false).
// - response.param: `responseParam` and `queryParam` (required), `includeParams` (default false),
//   `scrollRequest` (a job-like `{endpoint, method, params}` for the requests after the first).
// - multiple: `scrollers` (name -> one of the scrollers above or another method), `default`
//   (optional name of the scroller for jobs that name none); a job picks one with `scroller`.
// - Every scroller may carry the common stopping conditions `nextPageFlag`, `forceStop`, `limitStop`.
// - pagenum, cursor, response.url and zendesk.response.url are checked only for what is clearly
//   wrong (a missing required field, a wrong type); other fields pass through.
//
// offset and response.param are closed: an unknown field is an error (a misspelt `limitparam`
// would otherwise be ignored by the extractor without a word). A number field may also hold a
// whole `{{placeholder}}`, filled from a variable when the job runs.

export const GENERIC_EXTRACTOR_IDS = ["ex-generic-v2", "keboola.ex-generic-v2"] as const;

export function isGenericExtractor(componentId: string): boolean {
  return isOneOf(GENERIC_EXTRACTOR_IDS, componentId);
}

export const PAGINATION_METHODS = ["offset", "response.param", "response.url", "zendesk.response.url", "pagenum", "cursor", "multiple"] as const;

const PLACEHOLDER = /^\{\{\{?[^{}]+\}?\}\}$/;
const shown = (v: unknown): string => (typeof v === "string" ? JSON.stringify(v) : v === undefined ? "nothing" : (JSON.stringify(v) ?? String(v)));

// Field builders with messages that say what the field is and what to write.

function text(what: string, requiredFor?: string) {
  return z
    .string({
      error: (iss) =>
        iss.input === undefined ? `required${requiredFor ? ` for ${requiredFor}` : ""}: ${what}` : `must be a string: ${what}; got ${shown(iss.input)}`,
    })
    .min(1, `must not be empty: ${what}`);
}

function positiveInt(what: string, requiredFor?: string, example = 100) {
  const message = (v: unknown) => `must be a positive integer (${what}), e.g. ${example}; got ${shown(v)}`;
  return z
    .union([z.number(), z.string()], {
      error: (iss) => (iss.input === undefined ? `required${requiredFor ? ` for ${requiredFor}` : ""}: ${what}, a positive integer such as ${example}` : message(iss.input)),
    })
    .superRefine((v, ctx) => {
      if (typeof v === "string" && PLACEHOLDER.test(v.trim())) return; // filled by a variable at run time
      const n = typeof v === "number" ? v : /^\d+$/.test(v.trim()) ? Number(v) : NaN;
      if (!Number.isInteger(n) || n < 1) ctx.addIssue({ code: "custom", message: message(v) });
    });
}

function flag(what: string) {
  return z.boolean({ error: (iss) => (iss.input === undefined ? `required: true or false (${what})` : `must be true or false (${what}), got ${shown(iss.input)}`) });
}

const requestMethod = z
  .string({ error: (iss) => `must be "GET", "POST" or "FORM", got ${shown(iss.input)}` })
  .refine((m) => ["GET", "POST", "FORM"].includes(m.toUpperCase()), { message: 'must be "GET", "POST" or "FORM" (the HTTP method of the request; default GET)' });

const requestParams = z.record(z.string(), z.unknown(), { error: (iss) => `must be an object of request parameters, got ${shown(iss.input)}` });

export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  // A candidate that differs only in case is at distance 0, so it is the best one.
  const lower = word.toLowerCase();
  const best = candidates.map((c) => ({ c, d: distance(lower, c.toLowerCase()) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.max(2, Math.floor(word.length / 3)) && best.d < word.length ? best.c : undefined;
}

/** An object whose unknown fields are errors at their own path, reported together with the other issues. */
function closedObject<T extends z.ZodRawShape>(shape: T, label: string) {
  const known = Object.keys(shape);
  return z.looseObject(shape, { error: (iss) => `must be an object (${label}), got ${shown(iss.input)}` }).check(
    z.superRefine(
      (obj: unknown, ctx) => {
        if (!obj || typeof obj !== "object" || Array.isArray(obj)) return;
        for (const key of Object.keys(obj)) {
          if (known.includes(key)) continue;
          const guess = didYouMean(key, known);
          ctx.addIssue({
            code: "custom",
            path: [key],
            message: `unknown field "${key}" for ${label}${guess ? ` (did you mean "${guess}"?)` : ""}: the known fields are ${known.join(", ")}`,
          });
        }
      },
      { when: () => true },
    ),
  );
}

/** A positive whole number or a non-empty text (forceStop's time and volume), with one message for any other value. */
const wholeOrText = (message: string) => z.union([z.number().int(message).positive(message), z.string().min(1, message)], { error: message });

const FIRST_PAGE = "must be a whole number (index of the first page; default 1)";
const INCREMENT = "must be an integer (added to the cursor; default 0)";

// Stopping conditions every scroller may have.
const commonStops = {
  nextPageFlag: closedObject(
    {
      field: text("the response field whose value decides whether to go on", "nextPageFlag"),
      stopOn: flag("stop when the field has this value"),
      ifNotSet: flag("the value to assume when the field is missing").optional(),
    },
    "nextPageFlag",
  ).optional(),
  forceStop: closedObject(
    {
      pages: positiveInt("the maximum number of pages", undefined, 10).optional(),
      time: wholeOrText('must be a number of seconds or a time string like "5 minutes"').optional(),
      volume: wholeOrText("must be a number of bytes").optional(),
    },
    "forceStop",
  ).optional(),
  limitStop: closedObject(
    {
      field: text("the response field holding the total number of items").optional(),
      count: positiveInt("the number of items after which to stop", undefined, 1000).optional(),
    },
    "limitStop",
  )
    .refine((v) => (v.field === undefined) !== (v.count === undefined), { message: 'set exactly one of "field" and "count"' })
    .optional(),
};

export const offsetScrollerSchema = closedObject(
  {
    method: z.literal("offset"),
    limit: positiveInt("the page size", "offset pagination"),
    limitParam: text('the query parameter carrying the page size (default "limit")').optional(),
    offsetParam: text('the query parameter carrying the offset (default "offset")').optional(),
    firstPageParams: flag("send the limit and offset parameters with the first request too; default true").optional(),
    offsetFromJob: flag("start at the offset given in the job's params; default false").optional(),
    ...commonStops,
  },
  "offset pagination",
);

export const scrollRequestSchema = closedObject(
  {
    endpoint: text("the endpoint of the requests after the first one").optional(),
    method: requestMethod.optional(),
    params: requestParams.optional(),
  },
  "scrollRequest",
);

export const responseParamScrollerSchema = closedObject(
  {
    method: z.literal("response.param"),
    responseParam: text('the path to the response key holding the next-page value, e.g. "pagination.next"', "response.param pagination"),
    queryParam: text('the query parameter that carries the next-page value, e.g. "page"', "response.param pagination"),
    includeParams: flag("send the job's params with every request, not only the first; default false").optional(),
    scrollRequest: scrollRequestSchema.optional(),
    ...commonStops,
  },
  "response.param pagination",
);

// Methods checked loosely: required fields and obvious types only.
const looseScrollers: Record<string, z.ZodType> = {
  "response.url": z.looseObject({
    urlKey: text('the path to the response key holding the next URL (default "next_page")').optional(),
    delimiter: text('the separator of urlKey\'s nested keys (default ".")').optional(),
    paramIsQuery: flag("the URL holds only query parameters").optional(),
    includeParams: flag("add the job's params to the URL").optional(),
    ...commonStops,
  }),
  "zendesk.response.url": z.looseObject({ urlKey: text("the path to the response key holding the next URL").optional(), ...commonStops }),
  pagenum: z.looseObject({
    limit: positiveInt("the page size").optional(),
    limitParam: text('the query parameter carrying the page size (default "limit")').optional(),
    pageParam: text('the query parameter carrying the page number (default "page")').optional(),
    firstPageParams: flag("send the page parameters with the first request too; default true").optional(),
    firstPage: z.union([z.number().int(FIRST_PAGE).nonnegative(FIRST_PAGE), z.string().regex(PLACEHOLDER)], { error: FIRST_PAGE }).optional(),
    ...commonStops,
  }),
  cursor: z.looseObject({
    idKey: text("the path, relative to each item, of the cursor value", "cursor pagination"),
    param: text("the query parameter carrying the cursor", "cursor pagination"),
    increment: z.union([z.number().int(INCREMENT), z.string().regex(PLACEHOLDER)], { error: INCREMENT }).optional(),
    reverse: flag("use the smallest id instead of the largest").optional(),
    ...commonStops,
  }),
};

const methodList = PAGINATION_METHODS.map((m) => `"${m}"`).join(", ");

/** One scroller (any method but multiple), dispatched on `method`. */
function scrollerIssues(value: unknown, ctx: z.RefinementCtx, where: string): void {
  if (!isRecord(value)) {
    ctx.addIssue({ code: "custom", message: `must be an object (${where}), got ${shown(value)}` });
    return;
  }
  const method = value.method;
  if (method === undefined) return; // no pagination: one request per job
  if (!isOneOf(PAGINATION_METHODS, method)) {
    const guess = typeof method === "string" ? didYouMean(method, PAGINATION_METHODS) : undefined;
    ctx.addIssue({
      code: "custom",
      path: ["method"],
      message: `unknown pagination method ${shown(method)}${guess ? ` (did you mean "${guess}"?)` : ""}: use one of ${methodList}`,
    });
    return;
  }
  // looseScrollers has none for "multiple".
  const schema: z.ZodType | undefined = method === "offset" ? offsetScrollerSchema : method === "response.param" ? responseParamScrollerSchema : looseScrollers[method];
  if (!schema) {
    ctx.addIssue({ code: "custom", path: ["method"], message: `a scroller of "multiple" pagination cannot itself be "multiple": give it a single method (${methodList.replace(', "multiple"', "")})` });
    return;
  }
  for (const issue of schema.safeParse(value).error?.issues ?? []) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
}

/** A named scroller inside `scrollers`. */
export const scrollerSchema = z.unknown().superRefine((v, ctx) => scrollerIssues(v, ctx, "a scroller"));

export const multipleScrollerSchema = closedObject(
  {
    method: z.literal("multiple"),
    scrollers: z
      .record(z.string(), scrollerSchema, {
        error: (iss) =>
          iss.input === undefined
            ? 'required for multiple pagination: a map of scroller name to scroller, e.g. {"page": {"method": "offset", "limit": 100}}'
            : `must be a map of scroller name to scroller, got ${shown(iss.input)}`,
      })
      .refine((s) => Object.keys(s).length > 0, { message: 'must define at least one scroller, e.g. {"page": {"method": "offset", "limit": 100}}' }),
    default: text("the name of the scroller used by jobs that name none").optional(),
    ...commonStops,
  },
  "multiple pagination",
).superRefine((v, ctx) => {
  if (v.default !== undefined && !(v.default in v.scrollers)) {
    ctx.addIssue({ code: "custom", path: ["default"], message: `default scroller "${v.default}" is not defined in scrollers (defined: ${Object.keys(v.scrollers).join(", ")})` });
  }
});

/** `parameters.api.pagination`: the single form or `method: "multiple"` with named scrollers. */
export const paginationSchema = z.unknown().superRefine((value, ctx) => {
  if (isRecord(value) && value.method === "multiple") {
    for (const issue of multipleScrollerSchema.safeParse(value).error?.issues ?? []) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    return;
  }
  scrollerIssues(value, ctx, "pagination");
});

export interface ExtractorJob {
  endpoint: string;
  method?: string;
  params?: Record<string, unknown>;
  dataField?: string | { path: string; delimiter?: string };
  dataType?: string;
  scroller?: string;
  children?: ExtractorJob[];
  [key: string]: unknown;
}

// Built when the module loads; only the recursion into children is lazy (a schema built inside
// z.lazy is built once, by whichever parse comes first).
export const jobSchema: z.ZodType<ExtractorJob> = z.looseObject(
  {
    endpoint: text('the API endpoint of the job, relative to parameters.api.baseUrl (e.g. "users")', "each job"),
    method: requestMethod.optional(),
    params: requestParams.optional(),
    dataField: z
      .union([z.string(), z.looseObject({ path: z.string(), delimiter: z.string().optional() })], {
        error: 'must be the path to the array of items in the response (a string), or {"path": "...", "delimiter": "."}',
      })
      .optional(),
    dataType: text("the name of the output table for the job's items").optional(),
    scroller: text("the name of a scroller in parameters.api.pagination.scrollers").optional(),
    children: z.array(z.lazy(() => jobSchema), { error: "must be an array of jobs" }).optional(),
  },
  { error: (iss) => `must be a job object with at least an endpoint, got ${shown(iss.input)}` },
);

const apiSchema = z.looseObject({ pagination: paginationSchema.optional() }, { error: "must be an object (the API definition: baseUrl, pagination, ...)" });

const configSchema = z.looseObject(
  {
    jobs: z.array(jobSchema, { error: "must be an array of jobs" }).optional(),
    outputBucket: z.string({ error: "must be a string (the output bucket)" }).optional(),
    incrementalOutput: flag("load the extracted tables incrementally").optional(),
    debug: flag("log every request").optional(),
  },
  { error: "must be an object (the extraction: jobs, outputBucket, ...)" },
);

/** Scroller names defined by a pagination value, or undefined when it is not the multiple form. */
function scrollerNames(pagination: unknown): string[] | undefined {
  if (!isRecord(pagination)) return undefined;
  const { method, scrollers } = pagination;
  if (method !== "multiple" || !scrollers || typeof scrollers !== "object") return undefined;
  return Object.keys(scrollers);
}

/** Every job's `scroller` must name a scroller that exists (children included). */
function checkScrollerRefs(jobs: unknown, pagination: unknown, ctx: z.RefinementCtx, base: PropertyKey[]): void {
  if (!Array.isArray(jobs)) return;
  const names = scrollerNames(pagination);
  const method = isRecord(pagination) ? pagination.method : undefined;
  const visit = (list: unknown[], path: PropertyKey[]) =>
    list.forEach((job, i) => {
      if (!isRecord(job)) return;
      if (typeof job.scroller === "string" && job.scroller !== "") {
        if (!names) {
          ctx.addIssue({
            code: "custom",
            path: [...path, i, "scroller"],
            message: `a job can name a scroller only when parameters.api.pagination.method is "multiple" (it is ${method === undefined ? "not set" : shown(method)}): define the scroller "${job.scroller}" under pagination.scrollers, or remove the job's scroller`,
          });
        } else if (!names.includes(job.scroller)) {
          const guess = didYouMean(job.scroller, names);
          ctx.addIssue({
            code: "custom",
            path: [...path, i, "scroller"],
            message: `scroller "${job.scroller}" is not defined in parameters.api.pagination.scrollers${guess ? ` (did you mean "${guess}"?)` : ""} (defined: ${names.join(", ")})`,
          });
        }
      }
      if (Array.isArray(job.children)) visit(job.children, [...path, i, "children"]);
    });
  visit(jobs, base);
}

const get = (v: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((o, k) => (isRecord(o) ? o[k] : undefined), v);

/**
 * A Generic Extractor configuration (the component configuration's root, `{parameters: {api, config}}`).
 * Other keys pass through.
 */
export const genericExtractorConfigurationSchema = z
  .looseObject({
    parameters: z.looseObject({ api: apiSchema.optional(), config: configSchema.optional() }, { error: "must be an object" }).optional(),
  })
  .check(
    z.superRefine(
      (value: unknown, ctx) => {
        checkScrollerRefs(get(value, "parameters", "config", "jobs"), get(value, "parameters", "api", "pagination"), ctx, ["parameters", "config", "jobs"]);
      },
      { when: () => true },
    ),
  );

/**
 * Jobs in a row of a Generic Extractor configuration: the row is merged into the root when it runs,
 * so its jobs may name the root's scrollers.
 */
export function rowJobsSchema(rootPagination: unknown) {
  return z
    .looseObject({ parameters: z.looseObject({ config: configSchema.optional() }).optional() })
    .check(z.superRefine((value: unknown, ctx) => checkScrollerRefs(get(value, "parameters", "config", "jobs"), rootPagination, ctx, ["parameters", "config", "jobs"]), { when: () => true }));
}

export interface PathIssue {
  path: string;
  message: string;
}

/** Issues of a Generic Extractor configuration, with paths below `base` (e.g. `["configuration"]`). */
export function checkGenericExtractor(configuration: unknown, base: ReadonlyArray<PropertyKey> = ["configuration"]): PathIssue[] {
  const result = genericExtractorConfigurationSchema.safeParse(configuration);
  return (result.error?.issues ?? []).map((i) => ({ path: pathOf([...base, ...i.path]), message: i.message }));
}
