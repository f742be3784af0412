// The stack's id sequences (EmulatorState.counters): one counter a name for the whole emulator, so
// ids stay unique across its projects, as a real stack's numeric ids are.

/** The next value of the named counter (the first is `start`), recorded in `counters`. */
export function nextCounter(counters: Record<string, number>, name: string, start = 1): number {
  const next = (counters[name] ?? start - 1) + 1;
  counters[name] = next;
  return next;
}
