import type { IncomingMessage, ServerResponse } from "node:http";

// What every service of the emulator gets from its server: @hono/node-server passes the raw Node
// request and response as `c.env` (fault injection resets the socket; Stream reads the peer's
// address).

export interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/** The Env of a service without request variables of its own. */
export interface ServiceEnv {
  Bindings: NodeBindings;
}
