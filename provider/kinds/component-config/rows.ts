import type { ConfigRow, Configuration, StorageApi } from "../../api/storage";
import { isNotFound } from "../../api/errors";
import { same } from "../../lifecycle/common";
import { createRowOnce, DEFAULT_CHANGE_DESCRIPTION } from "../../lifecycle/configurations";
import { sealForWrite, type Encrypt, type SealedDoc } from "./secret-values";

// The rows of a ComponentConfig, reconciled one by one, never replaced wholesale. A declared row is
// matched to an existing row by, in this order: its explicit `rowId`; the id recorded in state for
// the row of the same name; the id recorded at the same position when that row was renamed; an
// existing row of the same (unique) name (after `pulumi import` or a partial create). Matched rows
// are written only when they differ, unmatched declared rows are created once (with their `rowId`
// when given), and rows no declared row matches are deleted.

/** A binding to a VariableConfig, as ComponentConfig's check gives it (variablesBindingSchema). */
export interface CheckedBinding {
  configId: string;
  valuesRowId?: string | null;
}

/** A declared row, as ComponentConfig's check gives it (rowInputsSchema): defaults applied. */
export interface DeclaredRow {
  rowId?: string;
  name: string;
  description: string;
  configuration: Record<string, unknown>;
  isDisabled: boolean;
  variables?: CheckedBinding;
}

/** What the rows are reconciled to: a configuration's address and its declared rows. */
export interface DeclaredRows {
  branchId: string;
  componentId: string;
  changeDescription?: string;
  rows: readonly DeclaredRow[];
}

export interface RowPlan {
  /** Per declared row: the id of the existing row it updates, or undefined to create it. */
  matched: Array<string | undefined>;
  /** Existing rows no declared row matches. */
  deletes: string[];
}

/**
 * Matches declared rows to existing ones. `recorded` is what state knows: the previous rows
 * (input-shaped) and their ids, index for index.
 */
export function planRows(
  desired: ReadonlyArray<{ rowId?: string; name: string }>,
  recorded: { rows: ReadonlyArray<{ rowId?: string; name: string }>; rowIds: readonly string[] },
  existing: ReadonlyArray<Pick<ConfigRow, "id" | "name">>,
): RowPlan {
  const exists = new Set(existing.map((r) => r.id));
  const claimed = new Set<string>();
  const matched: Array<string | undefined> = desired.map(() => undefined);
  const count = (names: string[]) => names.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<string, number>());
  const desiredNames = count(desired.map((d) => d.name));
  const recordedNames = count(recorded.rows.map((r) => r.name));
  const existingNames = count(existing.map((r) => r.name));
  const take = (i: number, id: string | undefined): void => {
    if (id === undefined || !exists.has(id) || claimed.has(id)) return;
    matched[i] = id;
    claimed.add(id);
  };
  const open = (i: number) => desired[i].rowId === undefined && matched[i] === undefined;

  // 1. Explicit ids (a missing one is created with that id).
  desired.forEach((d, i) => {
    if (d.rowId !== undefined) {
      claimed.add(d.rowId);
      if (exists.has(d.rowId)) matched[i] = d.rowId;
    }
  });
  // 2. The recorded id of the row with the same name (names unique on both sides).
  desired.forEach((d, i) => {
    if (!open(i) || desiredNames.get(d.name) !== 1 || recordedNames.get(d.name) !== 1) return;
    take(i, recorded.rowIds[recorded.rows.findIndex((r) => r.name === d.name)]);
  });
  // 3. Renamed in place: the recorded row at the same position, if its name is gone.
  desired.forEach((_d, i) => {
    if (!open(i) || i >= recorded.rows.length || desiredNames.has(recorded.rows[i].name)) return;
    take(i, recorded.rowIds[i]);
  });
  // 4. An existing row of the same unique name that state does not know.
  desired.forEach((d, i) => {
    if (!open(i) || desiredNames.get(d.name) !== 1 || existingNames.get(d.name) !== 1) return;
    take(i, existing.find((r) => r.name === d.name)?.id);
  });
  return { matched, deletes: existing.filter((r) => !claimed.has(r.id)).map((r) => r.id) };
}

/** Rows in effective order: `rowsSortOrder` first (when set), then the rest as listed. */
export function orderedRows(c: Configuration): ConfigRow[] {
  const byId = new Map(c.rows.map((r) => [r.id, r]));
  const first = c.rowsSortOrder.filter((id) => byId.has(id)).map((id) => byId.get(id)!);
  return [...first, ...c.rows.filter((r) => !c.rowsSortOrder.includes(r.id))];
}

const rowDiffers = (remote: ConfigRow, d: DeclaredRow) =>
  remote.name !== d.name || remote.description !== d.description || remote.isDisabled !== d.isDisabled || !same(remote.configuration, d.configuration);

/** A configuration or row as written (its `#` values sealed) plus the references of its binding. */
export function withBinding(sealed: Record<string, unknown>, binding: CheckedBinding | undefined): Record<string, unknown> {
  if (!binding) return sealed;
  const out: Record<string, unknown> = { ...sealed, variables_id: binding.configId };
  if (binding.valuesRowId) out.variables_values_id = binding.valuesRowId;
  return out;
}

export async function reconcileRows(
  storage: StorageApi,
  encrypt: Encrypt,
  p: DeclaredRows,
  configId: string,
  current: Configuration,
  recorded: { rows: Array<{ rowId?: string; name: string }>; rowIds: string[]; secrets: Record<string, SealedDoc> },
): Promise<{ rowIds: string[]; wrote: boolean; secrets: Record<string, SealedDoc> }> {
  const changeDescription = p.changeDescription ?? DEFAULT_CHANGE_DESCRIPTION;
  const plan = planRows(p.rows, recorded, current.rows);
  let wrote = plan.deletes.length > 0;
  for (const id of plan.deletes) {
    await storage.deleteRow(p.branchId, p.componentId, configId, id, changeDescription).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
  const ids: string[] = [];
  const secrets: Record<string, SealedDoc> = {};
  for (const [i, d] of p.rows.entries()) {
    const id = plan.matched[i];
    // The row's `#` values are encrypted before the row is written (one request, only for new values).
    const sealed = await sealForWrite(encrypt, d.configuration, id === undefined ? undefined : recorded.secrets[id]);
    const configuration = withBinding(sealed.document, d.variables);
    const row = { ...d, configuration };
    const body = { name: d.name, description: d.description, configuration, isDisabled: d.isDisabled, changeDescription };
    if (id === undefined) {
      const claimed = new Set([...ids, ...plan.matched.filter((m): m is string => m !== undefined)]);
      ids.push(await createRowOnce(storage, { branch: p.branchId, componentId: p.componentId, configId }, { ...(d.rowId ? { rowId: d.rowId } : {}), ...body }, claimed));
      wrote = true;
    } else {
      const remote = current.rows.find((r) => r.id === id)!;
      if (rowDiffers(remote, row)) {
        await storage.updateRow(p.branchId, p.componentId, configId, id, body);
        wrote = true;
      }
      ids.push(id);
    }
    secrets[ids[ids.length - 1]] = sealed.record;
  }
  return { rowIds: ids, wrote, secrets };
}
