// The provider object of every sink resource, as an export of the package: Pulumi serializes
// an installed package's export as `require("keboola-pulumi/kinds/sink")` instead of its code.
import { providerFor } from "../shim";

export = providerFor("sink");
