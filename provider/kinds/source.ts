// The provider object of every source resource, as an export of the package: Pulumi serializes
// an installed package's export as `require("keboola-pulumi/kinds/source")` instead of its code.
import { providerFor } from "../shim";

export = providerFor("source");
