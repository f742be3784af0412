// The provider object of every sinkSettings resource, as an export of the package: Pulumi serializes
// an installed package's export as `require("keboola-pulumi/kinds/sink-settings")` instead of its code.
import { providerFor } from "../shim";

export = providerFor("sinkSettings");
