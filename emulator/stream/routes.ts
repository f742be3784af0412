import type { Hono } from "hono";
import type { EmulatorContext } from "../core/context";

export function registerStreamRoutes(_app: Hono, _ctx: EmulatorContext): void {}
