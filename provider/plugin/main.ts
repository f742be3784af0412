#!/usr/bin/env node
// pulumi-resource-keboola: the provider plugin's executable (package.json's bin). The engine starts
// it and reads the port of its gRPC server from the first line of stdout (serve.ts). It never loads
// the Pulumi SDK's runtime: the kinds' schemas and lifecycles are apart from their classes
// (kinds/<kind>/kind.ts), and of the SDK the plugin takes only the protocol's messages.
import { serve } from "./serve";

serve();
