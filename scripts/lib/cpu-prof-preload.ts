// Preloaded (NODE_OPTIONS=--require) into the Node processes of a benchmarked `pulumi up` by
// bench-fleet --cpu-prof DIR: writes V8 CPU profiles of the process into $KEBOOLA_CPU_PROF_DIR, one
// every 2 s (a process the engine kills at the end loses at most its last 2 s). Node 20 refuses
// --cpu-prof in NODE_OPTIONS, hence the inspector.
import * as fs from "node:fs";
import * as inspector from "node:inspector";
import * as path from "node:path";

const dir = process.env.KEBOOLA_CPU_PROF_DIR;
if (dir) {
  const session = new inspector.Session();
  session.connect();
  let n = 0;
  const kind = /dynamic-provider/.test(process.argv.join(" ")) ? "provider" : "program";
  const start = () => {
    session.post("Profiler.enable");
    session.post("Profiler.setSamplingInterval", { interval: 500 });
    session.post("Profiler.start");
  };
  const flush = () => {
    // In-process sessions answer synchronously.
    session.post("Profiler.stop", (err, res) => {
      if (!err) fs.writeFileSync(path.join(dir, `${kind}.${process.pid}.${n++}.cpuprofile`), JSON.stringify(res.profile));
    });
  };
  start();
  setInterval(() => {
    flush();
    start();
  }, 2000).unref();
  process.on("exit", flush);
}
