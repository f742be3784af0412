// The provider object of every jobRun resource, as an export of the package: Pulumi serializes
// an installed package's export as `require("keboola-pulumi/kinds/job-run")` instead of its code.
import { providerFor } from "../shim";

export = providerFor("jobRun");
