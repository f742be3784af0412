// The provider object of every variableConfig resource, as an export of the package: Pulumi serializes
// an installed package's export as `require("keboola-pulumi/kinds/variable-config")` instead of its code.
import { providerFor } from "../shim";

export = providerFor("variableConfig");
