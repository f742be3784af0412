// The built `keboola-pulumi`, found as npm finds it (scripts/lib/bin.ts).
export { KEBOOLA_PULUMI } from "../../scripts/lib/bin";
