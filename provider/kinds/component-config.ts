// The provider object of every componentConfig resource, as an export of the package: Pulumi serializes
// an installed package's export as `require("keboola-pulumi/kinds/component-config")` instead of its code.
import { providerFor } from "../shim";

export = providerFor("componentConfig");
