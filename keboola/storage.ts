// Storage's naming rules for buckets, tables and columns, shared by the provider's checks and the
// emulator's answers (keboola/storage-api-php-client apiary.apib: "Only alphanumeric characters,
// dash and underscores are allowed" in bucket and table names; column names alphanumeric and
// underscores). Provisional until the emulator's side of issue 17 lands its own version here.

export const BUCKET_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
export const TABLE_NAME_PATTERN = /^[A-Za-z0-9_-]+$/;
export const COLUMN_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_]*$/;
export const MAX_BUCKET_NAME_LENGTH = 96;
export const MAX_TABLE_NAME_LENGTH = 96;
export const MAX_COLUMN_NAME_LENGTH = 64;

/** The id the service gives a bucket: `in.c-<name>` (the legacy `c-` prefix, on unless the project disables it). */
export function bucketIdOf(stage: string, name: string): string {
  return `${stage}.c-${name}`;
}
