import { describe, expect, it } from "vitest";
import { checkGenericExtractor, didYouMean, isGenericExtractor, rowJobsSchema } from "../../provider/kinds/component-config/generic-extractor";

// Generic Extractor configurations: `parameters.api.pagination` and `parameters.config.jobs`.

const P = "configuration.parameters.api.pagination";

function config(pagination: unknown, jobs: unknown[] = [{ endpoint: "users", dataField: "items" }]) {
  return { parameters: { api: { baseUrl: "https://api.example.com/", pagination }, config: { outputBucket: "in.c-users", jobs } } };
}

describe("generic extractor component ids", () => {
  it("accepts both spellings", () => {
    expect(isGenericExtractor("ex-generic-v2")).toBe(true);
    expect(isGenericExtractor("keboola.ex-generic-v2")).toBe(true);
    expect(isGenericExtractor("keboola.ex-db-snowflake")).toBe(false);
  });
});

describe("offset pagination", () => {
  it("accepts the documented fields", () => {
    expect(checkGenericExtractor(config({ method: "offset", limit: 100 }))).toEqual([]);
    expect(
      checkGenericExtractor(config({ method: "offset", limit: 2, limitParam: "count", offsetParam: "skip", firstPageParams: false, offsetFromJob: true })),
    ).toEqual([]);
  });

  it("accepts a numeric string and a whole placeholder as limit", () => {
    expect(checkGenericExtractor(config({ method: "offset", limit: "25" }))).toEqual([]);
    expect(checkGenericExtractor(config({ method: "offset", limit: "{{pageSize}}" }))).toEqual([]);
  });

  it("requires limit", () => {
    expect(checkGenericExtractor(config({ method: "offset" }))).toEqual([
      { path: `${P}.limit`, message: "required for offset pagination: the page size, a positive integer such as 100" },
    ]);
  });

  it("rejects a limit that is not a positive integer", () => {
    expect(checkGenericExtractor(config({ method: "offset", limit: "ten" }))).toEqual([
      { path: `${P}.limit`, message: 'must be a positive integer (the page size), e.g. 100; got "ten"' },
    ]);
    expect(checkGenericExtractor(config({ method: "offset", limit: 0 }))).toEqual([
      { path: `${P}.limit`, message: "must be a positive integer (the page size), e.g. 100; got 0" },
    ]);
    expect(checkGenericExtractor(config({ method: "offset", limit: 2.5 }))).toEqual([
      { path: `${P}.limit`, message: "must be a positive integer (the page size), e.g. 100; got 2.5" },
    ]);
  });

  it("rejects wrong types and unknown (misspelt) fields, each at its own path", () => {
    expect(checkGenericExtractor(config({ method: "offset", limit: 10, limitparam: "count", firstPageParams: "no", offsetParam: "" }))).toEqual([
      { path: `${P}.offsetParam`, message: 'must not be empty: the query parameter carrying the offset (default "offset")' },
      { path: `${P}.firstPageParams`, message: 'must be true or false (send the limit and offset parameters with the first request too; default true), got "no"' },
      {
        path: `${P}.limitparam`,
        message:
          'unknown field "limitparam" for offset pagination (did you mean "limitParam"?): the known fields are method, limit, limitParam, offsetParam, firstPageParams, offsetFromJob, nextPageFlag, forceStop, limitStop',
      },
    ]);
  });

  it("checks the common stopping conditions", () => {
    expect(checkGenericExtractor(config({ method: "offset", limit: 10, nextPageFlag: { field: "hasMore", stopOn: false }, forceStop: { pages: 50 } }))).toEqual([]);
    expect(checkGenericExtractor(config({ method: "offset", limit: 10, nextPageFlag: { field: "hasMore" } }))).toEqual([
      { path: `${P}.nextPageFlag.stopOn`, message: "required: true or false (stop when the field has this value)" },
    ]);
    expect(checkGenericExtractor(config({ method: "offset", limit: 10, limitStop: { field: "total", count: 5 } }))).toEqual([
      { path: `${P}.limitStop`, message: 'set exactly one of "field" and "count"' },
    ]);
  });
});

describe("response.param pagination", () => {
  it("accepts the documented fields", () => {
    expect(
      checkGenericExtractor(
        config({
          method: "response.param",
          responseParam: "scrolling.next_page",
          queryParam: "page",
          includeParams: true,
          scrollRequest: { endpoint: "users/scroll", method: "POST", params: { size: 100 } },
        }),
      ),
    ).toEqual([]);
  });

  it("requires responseParam and queryParam", () => {
    expect(checkGenericExtractor(config({ method: "response.param" }))).toEqual([
      { path: `${P}.responseParam`, message: 'required for response.param pagination: the path to the response key holding the next-page value, e.g. "pagination.next"' },
      { path: `${P}.queryParam`, message: 'required for response.param pagination: the query parameter that carries the next-page value, e.g. "page"' },
    ]);
  });

  it("rejects a wrong includeParams and a malformed scrollRequest", () => {
    expect(
      checkGenericExtractor(config({ method: "response.param", responseParam: "next", queryParam: "p", includeParams: 1, scrollRequest: { method: "PATCH", param: {} } })),
    ).toEqual([
      { path: `${P}.includeParams`, message: "must be true or false (send the job's params with every request, not only the first; default false), got 1" },
      { path: `${P}.scrollRequest.method`, message: 'must be "GET", "POST" or "FORM" (the HTTP method of the request; default GET)' },
      { path: `${P}.scrollRequest.param`, message: 'unknown field "param" for scrollRequest (did you mean "params"?): the known fields are endpoint, method, params' },
    ]);
  });
});

describe("multiple pagination", () => {
  const scrollers = {
    page: { method: "response.param", responseParam: "next", queryParam: "page" },
    list: { method: "offset", limit: 50 },
  };

  it("accepts named scrollers, a default and jobs naming them", () => {
    expect(
      checkGenericExtractor(
        config({ method: "multiple", scrollers, default: "list" }, [
          { endpoint: "users", scroller: "page" },
          { endpoint: "orders", children: [{ endpoint: "orders/{id}/items", scroller: "list", placeholders: { id: "id" } }] },
        ]),
      ),
    ).toEqual([]);
  });

  it("reports errors inside a named scroller at its path", () => {
    expect(checkGenericExtractor(config({ method: "multiple", scrollers: { page: { method: "response.param", queryParam: "page" } } }))).toEqual([
      { path: `${P}.scrollers.page.responseParam`, message: 'required for response.param pagination: the path to the response key holding the next-page value, e.g. "pagination.next"' },
    ]);
  });

  it("requires scrollers, and a default that exists", () => {
    expect(checkGenericExtractor(config({ method: "multiple" }))).toEqual([
      { path: `${P}.scrollers`, message: 'required for multiple pagination: a map of scroller name to scroller, e.g. {"page": {"method": "offset", "limit": 100}}' },
    ]);
    expect(checkGenericExtractor(config({ method: "multiple", scrollers: {} }))).toEqual([
      { path: `${P}.scrollers`, message: 'must define at least one scroller, e.g. {"page": {"method": "offset", "limit": 100}}' },
    ]);
    expect(checkGenericExtractor(config({ method: "multiple", scrollers, default: "pages" }))).toEqual([
      { path: `${P}.default`, message: 'default scroller "pages" is not defined in scrollers (defined: page, list)' },
    ]);
  });

  it("rejects a nested multiple scroller", () => {
    expect(checkGenericExtractor(config({ method: "multiple", scrollers: { a: { method: "multiple", scrollers } } }))).toEqual([
      {
        path: `${P}.scrollers.a.method`,
        message: 'a scroller of "multiple" pagination cannot itself be "multiple": give it a single method ("offset", "response.param", "response.url", "zendesk.response.url", "pagenum", "cursor")',
      },
    ]);
  });

  it("rejects a job naming a scroller that does not exist (children too)", () => {
    expect(
      checkGenericExtractor(config({ method: "multiple", scrollers }, [{ endpoint: "users", scroller: "pages" }, { endpoint: "orders", children: [{ endpoint: "x", scroller: "cursor" }] }])),
    ).toEqual([
      { path: "configuration.parameters.config.jobs[0].scroller", message: 'scroller "pages" is not defined in parameters.api.pagination.scrollers (did you mean "page"?) (defined: page, list)' },
      { path: "configuration.parameters.config.jobs[1].children[0].scroller", message: 'scroller "cursor" is not defined in parameters.api.pagination.scrollers (defined: page, list)' },
    ]);
  });

  it("rejects a job's scroller when the pagination is not multiple", () => {
    expect(checkGenericExtractor(config({ method: "offset", limit: 10 }, [{ endpoint: "users", scroller: "page" }]))).toEqual([
      {
        path: "configuration.parameters.config.jobs[0].scroller",
        message: 'a job can name a scroller only when parameters.api.pagination.method is "multiple" (it is "offset"): define the scroller "page" under pagination.scrollers, or remove the job\'s scroller',
      },
    ]);
  });
});

describe("other methods and jobs", () => {
  it("passes other methods of the extractor through", () => {
    expect(checkGenericExtractor(config({ method: "pagenum", limit: 20, pageParam: "p", firstPage: 0, somethingNew: true }))).toEqual([]);
    expect(checkGenericExtractor(config({ method: "response.url", urlKey: "links.next", paramIsQuery: true }))).toEqual([]);
    expect(checkGenericExtractor(config({ method: "cursor", idKey: "id", param: "since_id", increment: 1 }))).toEqual([]);
    expect(checkGenericExtractor(config(undefined))).toEqual([]);
    expect(checkGenericExtractor(config({}))).toEqual([]);
  });

  it("still rejects what is clearly wrong in them", () => {
    expect(checkGenericExtractor(config({ method: "cursor", idKey: "id" }))).toEqual([
      { path: `${P}.param`, message: "required for cursor pagination: the query parameter carrying the cursor" },
    ]);
  });

  it("rejects an unknown method, suggesting the closest", () => {
    expect(checkGenericExtractor(config({ method: "offest", limit: 1 }))).toEqual([
      {
        path: `${P}.method`,
        message: 'unknown pagination method "offest" (did you mean "offset"?): use one of "offset", "response.param", "response.url", "zendesk.response.url", "pagenum", "cursor", "multiple"',
      },
    ]);
  });

  it("checks job fields", () => {
    expect(
      checkGenericExtractor(config({ method: "offset", limit: 10 }, [{ endpoint: "users", method: "post", params: { a: 1 }, dataField: { path: "data.items" }, dataType: "users" }])),
    ).toEqual([]);
    expect(checkGenericExtractor(config({ method: "offset", limit: 10 }, [{ dataType: "x" }, { endpoint: "a", method: "PUT", params: [1], dataField: 5, dataType: "" }]))).toEqual([
      { path: "configuration.parameters.config.jobs[0].endpoint", message: 'required for each job: the API endpoint of the job, relative to parameters.api.baseUrl (e.g. "users")' },
      { path: "configuration.parameters.config.jobs[1].method", message: 'must be "GET", "POST" or "FORM" (the HTTP method of the request; default GET)' },
      { path: "configuration.parameters.config.jobs[1].params", message: "must be an object of request parameters, got [1]" },
      { path: "configuration.parameters.config.jobs[1].dataField", message: 'must be the path to the array of items in the response (a string), or {"path": "...", "delimiter": "."}' },
      { path: "configuration.parameters.config.jobs[1].dataType", message: "must not be empty: the name of the output table for the job's items" },
    ]);
  });

  it("suggests close names only", () => {
    expect(didYouMean("limitparam", ["limit", "limitParam"])).toBe("limitParam");
    expect(didYouMean("zzz", ["limit", "offset"])).toBeUndefined();
  });
});

// What a user reads for each field of each method: where it is, what is wrong, what the field is.
describe("every field's refusal says what the field is", () => {
  const issues = (pagination: unknown) => checkGenericExtractor(config(pagination)).map((i) => [i.path.slice(P.length + 1), i.message]);

  it.each([
    [
      "offset",
      { method: "offset", limit: 10, limitParam: 5, offsetParam: "", firstPageParams: "yes", offsetFromJob: 1 },
      [
        ["limitParam", 'must be a string: the query parameter carrying the page size (default "limit"); got 5'],
        ["offsetParam", 'must not be empty: the query parameter carrying the offset (default "offset")'],
        ["firstPageParams", 'must be true or false (send the limit and offset parameters with the first request too; default true), got "yes"'],
        ["offsetFromJob", "must be true or false (start at the offset given in the job's params; default false), got 1"],
      ],
    ],
    [
      "stopping conditions",
      { method: "offset", limit: 10, nextPageFlag: { field: 5, stopOn: "x", ifNotSet: "x" }, forceStop: { pages: 0, time: -1, volume: "" }, limitStop: { field: 5 } },
      [
        ["nextPageFlag.field", "must be a string: the response field whose value decides whether to go on; got 5"],
        ["nextPageFlag.stopOn", 'must be true or false (stop when the field has this value), got "x"'],
        ["nextPageFlag.ifNotSet", 'must be true or false (the value to assume when the field is missing), got "x"'],
        ["forceStop.pages", "must be a positive integer (the maximum number of pages), e.g. 10; got 0"],
        ["forceStop.time", 'must be a number of seconds or a time string like "5 minutes"'],
        ["forceStop.volume", "must be a number of bytes"],
        ["limitStop.field", "must be a string: the response field holding the total number of items; got 5"],
      ],
    ],
    ["a stopping condition that is no object", { method: "offset", limit: 10, forceStop: 5 }, [["forceStop", "must be an object (forceStop), got 5"]]],
    ["nextPageFlag without its field", { method: "offset", limit: 10, nextPageFlag: { stopOn: true } }, [["nextPageFlag.field", "required for nextPageFlag: the response field whose value decides whether to go on"]]],
    [
      "response.param",
      { method: "response.param", responseParam: 5, queryParam: "", includeParams: 1, scrollRequest: { endpoint: 5, method: "PUT", params: [] } },
      [
        ["responseParam", 'must be a string: the path to the response key holding the next-page value, e.g. "pagination.next"; got 5'],
        ["queryParam", 'must not be empty: the query parameter that carries the next-page value, e.g. "page"'],
        ["includeParams", "must be true or false (send the job's params with every request, not only the first; default false), got 1"],
        ["scrollRequest.endpoint", "must be a string: the endpoint of the requests after the first one; got 5"],
        ["scrollRequest.method", 'must be "GET", "POST" or "FORM" (the HTTP method of the request; default GET)'],
        ["scrollRequest.params", "must be an object of request parameters, got []"],
      ],
    ],
    ["a scrollRequest that is no object", { method: "response.param", responseParam: "a", queryParam: "b", scrollRequest: 5 }, [["scrollRequest", "must be an object (scrollRequest), got 5"]]],
    [
      "response.url",
      { method: "response.url", urlKey: 5, delimiter: "", paramIsQuery: "x", includeParams: 2 },
      [
        ["urlKey", 'must be a string: the path to the response key holding the next URL (default "next_page"); got 5'],
        ["delimiter", 'must not be empty: the separator of urlKey\'s nested keys (default ".")'],
        ["paramIsQuery", 'must be true or false (the URL holds only query parameters), got "x"'],
        ["includeParams", "must be true or false (add the job's params to the URL), got 2"],
      ],
    ],
    ["zendesk.response.url", { method: "zendesk.response.url", urlKey: 5 }, [["urlKey", "must be a string: the path to the response key holding the next URL; got 5"]]],
    [
      "pagenum",
      { method: "pagenum", limit: "x", limitParam: 5, pageParam: 5, firstPageParams: 1, firstPage: -1 },
      [
        ["limit", 'must be a positive integer (the page size), e.g. 100; got "x"'],
        ["limitParam", 'must be a string: the query parameter carrying the page size (default "limit"); got 5'],
        ["pageParam", 'must be a string: the query parameter carrying the page number (default "page"); got 5'],
        ["firstPageParams", "must be true or false (send the page parameters with the first request too; default true), got 1"],
        ["firstPage", "must be a whole number (index of the first page; default 1)"],
      ],
    ],
    ["pagenum's first page not whole", { method: "pagenum", firstPage: 1.5 }, [["firstPage", "must be a whole number (index of the first page; default 1)"]]],
    [
      "cursor",
      { method: "cursor", idKey: 5, param: 5, increment: 1.5, reverse: "x" },
      [
        ["idKey", "must be a string: the path, relative to each item, of the cursor value; got 5"],
        ["param", "must be a string: the query parameter carrying the cursor; got 5"],
        ["increment", "must be an integer (added to the cursor; default 0)"],
        ["reverse", 'must be true or false (use the smallest id instead of the largest), got "x"'],
      ],
    ],
    [
      "cursor without its fields",
      { method: "cursor" },
      [
        ["idKey", "required for cursor pagination: the path, relative to each item, of the cursor value"],
        ["param", "required for cursor pagination: the query parameter carrying the cursor"],
      ],
    ],
    ["multiple without scrollers", { method: "multiple" }, [["scrollers", 'required for multiple pagination: a map of scroller name to scroller, e.g. {"page": {"method": "offset", "limit": 100}}']]],
    ["multiple with scrollers that are no map", { method: "multiple", scrollers: 5 }, [["scrollers", "must be a map of scroller name to scroller, got 5"]]],
    ["multiple with a scroller that is no object", { method: "multiple", scrollers: { a: 5 } }, [["scrollers.a", "must be an object (a scroller), got 5"]]],
    ["a pagination that is no object", 5, [["", "must be an object (pagination), got 5"]]],
  ])("%s", (_what, pagination, expected) => {
    expect(issues(pagination)).toEqual(expected.map(([path, message]) => [path, message]));
  });

  it("says what each job field and the extraction's fields are", () => {
    const jobs = (j: unknown[]) => checkGenericExtractor(config(undefined, j)).map((i) => [i.path, i.message]);
    const J = "configuration.parameters.config.jobs[0]";
    expect(jobs([5])).toEqual([[J, "must be a job object with at least an endpoint, got 5"]]);
    expect(jobs([{ endpoint: "a", method: 5, params: 5, dataField: { path: 5 }, dataType: "", scroller: 5, children: 5 }])).toEqual([
      [`${J}.method`, 'must be "GET", "POST" or "FORM", got 5'],
      [`${J}.params`, "must be an object of request parameters, got 5"],
      [`${J}.dataField`, 'must be the path to the array of items in the response (a string), or {"path": "...", "delimiter": "."}'],
      [`${J}.dataType`, "must not be empty: the name of the output table for the job's items"],
      [`${J}.scroller`, "must be a string: the name of a scroller in parameters.api.pagination.scrollers; got 5"],
      [`${J}.children`, "must be an array of jobs"],
    ]);
    const root = (c: unknown) => checkGenericExtractor(c).map((i) => [i.path, i.message]);
    expect(root({ parameters: 5 })).toEqual([["configuration.parameters", "must be an object"]]);
    expect(root({ parameters: { api: 5, config: { jobs: 5, outputBucket: 5, incrementalOutput: "x", debug: 1 } } })).toEqual([
      ["configuration.parameters.api", "must be an object (the API definition: baseUrl, pagination, ...)"],
      ["configuration.parameters.config.jobs", "must be an array of jobs"],
      ["configuration.parameters.config.outputBucket", "must be a string (the output bucket)"],
      ["configuration.parameters.config.incrementalOutput", 'must be true or false (load the extracted tables incrementally), got "x"'],
      ["configuration.parameters.config.debug", "must be true or false (log every request), got 1"],
    ]);
    expect(root({ parameters: { config: 5 } })).toEqual([["configuration.parameters.config", "must be an object (the extraction: jobs, outputBucket, ...)"]]);
  });
});

// What a mutation run (npm run mutate -- validation) found untested: each case below fails when the
// rule it names is broken.
describe("the rules behind the messages", () => {
  const issuesOf = (pagination: unknown, jobs?: unknown[]) => checkGenericExtractor(config(pagination, jobs)).map((i) => [i.path, i.message]);

  it("a limit is a whole number written in digits (spaces around it allowed), or a whole placeholder", () => {
    for (const limit of [1, "1", " 25 ", " {{pageSize}} ", "{{{pageSize}}}"]) expect(issuesOf({ method: "offset", limit }), String(limit)).toEqual([]);
    for (const limit of ["1e3", "0x10", "+5", "x{{pageSize}}", "{{pageSize}}x", "{{a}}{{b}}", "", true, null]) {
      expect(issuesOf({ method: "offset", limit }), String(limit)).toEqual([[`${P}.limit`, `must be a positive integer (the page size), e.g. 100; got ${JSON.stringify(limit)}`]]);
    }
  });

  it("shows an offending value as JSON, and a missing one as nothing", () => {
    expect(issuesOf({ method: "multiple", scrollers: { a: undefined, b: null, c: [1], d: "offset" } })).toEqual([
      [`${P}.scrollers.a`, "must be an object (a scroller), got nothing"],
      [`${P}.scrollers.b`, "must be an object (a scroller), got null"],
      [`${P}.scrollers.c`, "must be an object (a scroller), got [1]"],
      [`${P}.scrollers.d`, 'must be an object (a scroller), got "offset"'],
    ]);
  });

  it("a request method is GET, POST or FORM in any case", () => {
    for (const method of ["GET", "get", "POST", "post", "FORM", "form"]) expect(issuesOf({ method: "offset", limit: 1 }, [{ endpoint: "a", method }]), method).toEqual([]);
    expect(issuesOf({ method: "response.param", responseParam: "next", queryParam: "p", scrollRequest: { method: "PUT" } })).toEqual([
      [`${P}.scrollRequest.method`, 'must be "GET", "POST" or "FORM" (the HTTP method of the request; default GET)'],
    ]);
  });

  it("names the object a misspelt or misplaced field is in, and one that is no object is one problem", () => {
    expect(issuesOf({ method: "offset", limit: 1, nextPageFlag: { field: "more", stopOn: false, stopon: true }, limitStop: { count: 5, feild: "x" } })).toEqual([
      [`${P}.nextPageFlag.stopon`, 'unknown field "stopon" for nextPageFlag (did you mean "stopOn"?): the known fields are field, stopOn, ifNotSet'],
      [`${P}.limitStop.feild`, 'unknown field "feild" for limitStop (did you mean "field"?): the known fields are field, count'],
    ]);
    expect(issuesOf({ method: "response.param", responseParam: "next", queryParam: "p", query: "x" })[0]).toEqual([
      `${P}.query`,
      'unknown field "query" for response.param pagination: the known fields are method, responseParam, queryParam, includeParams, scrollRequest, nextPageFlag, forceStop, limitStop',
    ]);
    expect(issuesOf({ method: "multiple", scrollers: { a: { method: "offset", limit: 1 } }, defualt: "a" })).toEqual([
      [`${P}.defualt`, 'unknown field "defualt" for multiple pagination (did you mean "default"?): the known fields are method, scrollers, default, nextPageFlag, forceStop, limitStop'],
    ]);
    expect(issuesOf({ method: "offset", limit: 1, nextPageFlag: "yes", forceStop: [5] })).toEqual([
      [`${P}.nextPageFlag`, 'must be an object (nextPageFlag), got "yes"'],
      [`${P}.forceStop`, "must be an object (forceStop), got [5]"],
    ]);
    // A wrong value and an unknown field in one object are both reported.
    expect(issuesOf({ method: "offset", limit: 0, limitparam: "n" })).toEqual([
      [`${P}.limit`, "must be a positive integer (the page size), e.g. 100; got 0"],
      [`${P}.limitparam`, expect.stringMatching(/^unknown field "limitparam" for offset pagination \(did you mean "limitParam"\?\)/)],
    ]);
  });

  it("limitStop takes exactly one of field and count; forceStop's time and volume a number or a text", () => {
    expect(issuesOf({ method: "offset", limit: 1, limitStop: { count: 500 }, forceStop: { time: 5, volume: "10 MB" } })).toEqual([]);
    expect(issuesOf({ method: "offset", limit: 1, limitStop: { field: "total" }, forceStop: { time: "5 minutes", volume: 1000 } })).toEqual([]);
    expect(issuesOf({ method: "offset", limit: 1, limitStop: {} })).toEqual([[`${P}.limitStop`, 'set exactly one of "field" and "count"']]);
    expect(issuesOf({ method: "offset", limit: 1, limitStop: { count: 0 } })).toEqual([
      [`${P}.limitStop.count`, "must be a positive integer (the number of items after which to stop), e.g. 1000; got 0"],
    ]);
  });

  it("a missing required text says what it is required for", () => {
    expect(issuesOf({ method: "response.param" })).toEqual([
      [`${P}.responseParam`, 'required for response.param pagination: the path to the response key holding the next-page value, e.g. "pagination.next"'],
      [`${P}.queryParam`, 'required for response.param pagination: the query parameter that carries the next-page value, e.g. "page"'],
    ]);
    expect(issuesOf({ method: "multiple", scrollers: { a: { method: "offset", limit: 1 } }, default: "" })).toEqual([
      [`${P}.default`, "must not be empty: the name of the scroller used by jobs that name none"],
      [`${P}.default`, 'default scroller "" is not defined in scrollers (defined: a)'],
    ]);
  });

  it("an unknown method suggests the closest only when it is close", () => {
    const unknown = (method: string, guess?: string) => [
      [`${P}.method`, `unknown pagination method "${method}"${guess ? ` (did you mean "${guess}"?)` : ""}: use one of "offset", "response.param", "response.url", "zendesk.response.url", "pagenum", "cursor", "multiple"`],
    ];
    expect(issuesOf({ method: "pagenm" })).toEqual(unknown("pagenm", "pagenum"));
    expect(issuesOf({ method: "set" })).toEqual(unknown("set"));
    expect(issuesOf({ method: 5 })).toEqual([[`${P}.method`, 'unknown pagination method 5: use one of "offset", "response.param", "response.url", "zendesk.response.url", "pagenum", "cursor", "multiple"']]);
  });

  it("did-you-mean: case alone is no difference; the distance allowed grows with the word (2, or a third of it) and stays below its length", () => {
    expect(didYouMean("OFFSET", ["offset", "OFFSETS"])).toBe("offset");
    expect(didYouMean("zendesk.resp.url", ["zendesk.response.url"])).toBe("zendesk.response.url"); // 4 edits in 16 letters
    expect(didYouMean("zendesk.rsp.rl", ["zendesk.response.url"])).toBeUndefined(); // 6 edits in 14 letters
    expect(didYouMean("pag", ["page"])).toBe("page");
    expect(didYouMean("pg", ["page"])).toBeUndefined(); // 2 edits in 2 letters
    expect(didYouMean("set", ["offset"])).toBeUndefined();
    expect(didYouMean("cursr", ["offset", "cursor", "curso"])).toBe("cursor");
    expect(didYouMean("x", [])).toBeUndefined();
  });

  it("a job's scroller is checked only when it is a non-empty text, and the message says what the method is", () => {
    expect(issuesOf({ method: "multiple", scrollers: { a: { method: "offset", limit: 1 } } }, [{ endpoint: "u", scroller: 5 }, { endpoint: "v", scroller: "" }])).toEqual([
      ["configuration.parameters.config.jobs[0].scroller", "must be a string: the name of a scroller in parameters.api.pagination.scrollers; got 5"],
      ["configuration.parameters.config.jobs[1].scroller", "must not be empty: the name of a scroller in parameters.api.pagination.scrollers"],
    ]);
    const notMultiple = (what: string) =>
      `a job can name a scroller only when parameters.api.pagination.method is "multiple" (it is ${what}): define the scroller "a" under pagination.scrollers, or remove the job's scroller`;
    expect(issuesOf(undefined, [{ endpoint: "u", scroller: "a" }])).toEqual([["configuration.parameters.config.jobs[0].scroller", notMultiple("not set")]]);
    // "multiple" without (usable) scrollers: no names to check against.
    for (const scrollers of [undefined, null, "a"]) {
      expect(issuesOf({ method: "multiple", scrollers }, [{ endpoint: "u", scroller: "a" }]).filter(([p]) => p.endsWith("scroller")), String(scrollers)).toEqual([
        ["configuration.parameters.config.jobs[0].scroller", notMultiple('"multiple"')],
      ]);
    }
  });

  it("a row's jobs are checked as the root's, against the root's scrollers", () => {
    const root = { method: "multiple", scrollers: { page: { method: "offset", limit: 1 } } };
    const row = (c: unknown, pagination: unknown = root) => (rowJobsSchema(pagination).safeParse(c).error?.issues ?? []).map((i) => [i.path.join("."), i.message]);
    expect(row({ parameters: { config: { jobs: [{ endpoint: "u", scroller: "page" }] } } })).toEqual([]);
    expect(row({ parameters: { config: { jobs: [{ scroller: "pages" }], debug: 1 } } })).toEqual([
      ["parameters.config.jobs.0.endpoint", 'required for each job: the API endpoint of the job, relative to parameters.api.baseUrl (e.g. "users")'],
      ["parameters.config.debug", "must be true or false (log every request), got 1"],
      ["parameters.config.jobs.0.scroller", 'scroller "pages" is not defined in parameters.api.pagination.scrollers (did you mean "page"?) (defined: page)'],
    ]);
    expect((rowJobsSchema(undefined).safeParse({ parameters: { config: { jobs: [{ endpoint: "u", scroller: "page" }] } } }).error?.issues ?? []).map((i) => [i.path.join("."), i.message])).toEqual([
      ["parameters.config.jobs.0.scroller", expect.stringContaining("(it is not set)")],
    ]);
  });
});
