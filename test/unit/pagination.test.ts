import { describe, expect, it } from "vitest";
import { checkGenericExtractor, didYouMean, isGenericExtractor } from "../../provider/validation/pagination";

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
