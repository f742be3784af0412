// The provider object of every sourceSettings resource, as an export of the package: Pulumi serializes
// an installed package's export as `require("keboola-pulumi/kinds/source-settings")` instead of its code.
import { providerFor } from "../shim";

export = providerFor("sourceSettings");
