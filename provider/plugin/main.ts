#!/usr/bin/env node
// pulumi-resource-keboola: the provider plugin's executable (package.json's bin). The engine starts
// it and reads the port of its gRPC server from the first line of stdout (serve.ts). The SDK's two
// modules the plugin never uses are deferred before anything loads the SDK (defer-sdk-modules.ts).
import { deferSdkModules } from "./defer-sdk-modules";

deferSdkModules();
// Required after the deferral is in place: the server loads the kinds, and they the SDK.
const { serve }: typeof import("./serve") = require("./serve");
serve();
