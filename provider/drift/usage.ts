// The usage text of `drift` and `pull`, apart from their code: `keboola-pulumi --help` loads no kinds.

export const DRIFT_USAGE = `usage: keboola-pulumi drift [<manifest>] [--stack <name>] [--json] [--markdown <file>]
  what changed in Keboola outside the code, per object the stack manages (nothing is written)
  --json        the report as JSON on standard output
  --markdown    also write the report as Markdown (the review report's format) to <file>
  exit code: 0 nothing drifted, 2 something drifted, 1 an error

usage: keboola-pulumi pull [<manifest>] [--stack <name>] [--dry-run] [--include-deleted] [--include-new]
  write the drift back into the manifest (default: stack config keboola:manifest, else keboola.yaml),
  print the unified diff of the file, then refresh the pulled objects' state
  --dry-run          print the diff only: neither the file nor the state is written
  --include-deleted  remove the entries of objects deleted in Keboola (otherwise the next up creates them again)
  --include-new      also add entries for objects made in Keboola that the stack does not manage (with
                     adoptExisting: the next up takes them over); never another stack's, never a job's tables`;
