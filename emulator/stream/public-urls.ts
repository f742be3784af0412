import type { EmulatorContext } from "../core/context";

/**
 * Where the Stream service says it is: the API's and the ingestion's public base URLs (the
 * `streamPublicUrls` option, as the real service's STREAM_API_PUBLIC_URL and
 * STREAM_SOURCE_HTTP_PUBLIC_URL; by default the emulator's own mounts).
 */
export function streamPublicUrls(ctx: EmulatorContext): { api: string; in: string } {
  const urls = ctx.urls();
  const configured = ctx.options.streamPublicUrls ?? {};
  return { api: configured.api ?? urls.stream, in: configured.in ?? urls.streamIn };
}
