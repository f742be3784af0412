// The stream service's part of the emulator state: plain JSON, so it can be saved to a file.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface StreamState {}

export function initialStreamState(): StreamState {
  return {};
}
