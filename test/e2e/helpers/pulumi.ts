// The end-to-end tests use the same Pulumi workspace as the quickstart.
export * from "../../../scripts/lib/pulumi-workspace";
