import type { Hono } from "hono";
import type { EmulatorContext } from "../core/context";

export function registerQueueRoutes(_app: Hono, _ctx: EmulatorContext): void {}
