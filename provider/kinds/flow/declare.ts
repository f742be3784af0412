import type { DeployContext } from "../../program/manifest-context";
import type { FlowEntry } from "./manifest";
import type * as pulumi from "@pulumi/pulumi";
import { Flow } from "./resource";

/** The `flows` of a manifest: a Flow each, a task naming a configuration by key running its component and configId. */
export function declareFlows(entries: Record<string, FlowEntry>, ctx: DeployContext<{ configurations?: Record<string, { componentId: string }> }, { configurations: Record<string, { configId: pulumi.Output<string> }> }>) {
  const flows: Record<string, Flow> = {};
  for (const [key, { phases, ...inputs }] of Object.entries(entries)) {
    const declared = phases.map(({ tasks, ...phase }) => ({
      ...phase,
      tasks: tasks.map(({ configuration, componentId, configId, ...task }) =>
        configuration !== undefined
          ? { ...task, componentId: ctx.manifest.configurations![configuration].componentId, configId: ctx.declared.configurations[configuration].configId }
          : { ...task, componentId: componentId!, configId: configId! },
      ),
    }));
    flows[key] = new Flow(key, { ...inputs, phases: declared }, ctx.optsOf(key));
  }
  return { flows };
}
