// A harness that misbehaves on demand, for the kit's fault tests: the first user message of a
// complete() request names the fault ("FAULT:exit", ...); any other request is answered.
// FAULTY_HELLO=exit makes the child die before its hello; FAULTY_HELLO=version speaks protocol 99.
import { serve } from "../../js/src/index.mjs";

if (process.env.FAULTY_HELLO === "exit") {
  console.error("faulty.mjs: cannot start, missing config FOO_API_BASE");
  process.exit(2);
}
if (process.env.FAULTY_HELLO === "version") {
  process.stdin.once("data", (line) => {
    const { id } = JSON.parse(String(line));
    process.stdout.write(JSON.stringify({ v: 1, id, type: "hello", protocol: 99, contracts: ["chat"] }) + "\n");
  });
} else {
  serve({
    name: "faulty",
    profile: { streaming: false, timeout: 2 },
    adapter: {
      async complete(request) {
        const fault = (request.messages.find((m) => m.role === "user") || {}).content || "";
        if (fault === "FAULT:exit") { console.error("faulty.mjs: boom, exiting"); process.exit(3); }
        if (fault === "FAULT:hang") { console.error("faulty.mjs: hanging"); await new Promise(() => setInterval(() => {}, 1000)); }
        if (fault === "FAULT:garbage") { console.error("faulty.mjs: logging to stdout"); process.stdout.write("debug: got a request\n"); }
        if (fault === "FAULT:bad_utf8") { console.error("faulty.mjs: a stray byte"); process.stdout.write(Buffer.from([0xff, 0xfe, 0x0a])); }
        if (fault === "FAULT:bad_message") process.stdout.write(JSON.stringify({ v: 1, id: 1, type: "result", response: {}, extra: true }) + "\n");
        if (fault === "FAULT:late") await new Promise((r) => setTimeout(r, 2500));
        if (fault === "FAULT:bad_shape") return { text: 42, tool_calls: [], finish_reason: "stop" };
        if (fault === "FAULT:throw") throw new TypeError("cannot read properties of undefined");
        return { content: "ok", toolCalls: [] };
      },
    },
  });
}
