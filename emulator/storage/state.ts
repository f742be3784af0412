// The storage service's part of the emulator state: plain JSON, so it can be saved to a file.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface StorageState {}

export function initialStorageState(): StorageState {
  return {};
}
