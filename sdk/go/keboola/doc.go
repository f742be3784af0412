// Keboola Stream sources, sinks and settings, component configurations, variables and job runs, Storage buckets and tables, flows, schedules and dev branches.
package keboola
