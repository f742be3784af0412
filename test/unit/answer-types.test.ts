// The provider's client reads a part of each answer; the emulator answers with the shared types of
// keboola/. These checks (made by the type checker, `npm run typecheck`) fail when the two drift.
import { describe, expectTypeOf, it } from "vitest";
import type { QueueJob } from "../../provider/api/queue";
import type { ConfigRow, Configuration, StorageTable as ClientTable, TokenInfo } from "../../provider/api/storage";
import type { StreamSetting, StreamSink, StreamSource, StreamTask } from "../../provider/api/stream";
import type { JsonObject } from "../../keboola/json";
import type { QueueJobDetail } from "../../keboola/queue";
import type { StorageConfigRow, StorageConfiguration, StorageTable, StorageToken } from "../../keboola/storage-answers";
import type * as Shared from "../../keboola/stream";

describe("the client's types read the shared answers", () => {
  it("Storage: a token, a table's detail, a configuration's detail and its rows", () => {
    expectTypeOf<StorageToken>().toExtend<TokenInfo>();
    // A table's detail always has its columns (only a list may leave them out).
    expectTypeOf<Required<Pick<StorageTable, "columns">> & StorageTable>().toExtend<ClientTable>();
    expectTypeOf<StorageConfigRow>().toExtend<ConfigRow>();
    // A configuration's detail always has its configuration and its rows.
    expectTypeOf<Required<Pick<StorageConfiguration, "configuration" | "rows">> & StorageConfiguration>().toExtend<Configuration>();
  });

  it("Queue: a finished job (an unfinished one's result is [])", () => {
    expectTypeOf<Omit<QueueJobDetail, "result"> & { result: JsonObject & { message?: string } }>().toExtend<QueueJob>();
  });

  it("Stream: the provider's types are the shared ones", () => {
    expectTypeOf<StreamSource>().toEqualTypeOf<Shared.StreamSource>();
    expectTypeOf<StreamSink>().toEqualTypeOf<Shared.StreamSink>();
    expectTypeOf<StreamSetting>().toEqualTypeOf<Shared.StreamSetting>();
    expectTypeOf<StreamTask>().toEqualTypeOf<Shared.StreamTask>();
  });
});
