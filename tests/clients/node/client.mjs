// A real TypeScript SDK client for the tests: starts an MCP server with the SDK's own
// StdioClientTransport (so the server gets only the SDK's default environment), then
// runs the steps it is given and prints one JSON report on stdout. Progress
// notifications are printed as they come, one JSON line each on stderr, so a test can
// wait for them.
//
//   node client.mjs '{"command": "...", "args": [...], "steps": [...]}'
//
// A step: {"call": NAME, "arguments": {...}, "resetTimeoutOnProgress": true,
//          "timeoutMs": 60000} (the SDK's default timeout when absent), or
//          {"list": "tools" | "prompts" | "resources"}.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  StdioClientTransport,
  getDefaultEnvironment,
} from "@modelcontextprotocol/sdk/client/stdio.js";

const script = JSON.parse(process.argv[2]);
const transport = new StdioClientTransport({
  command: script.command,
  args: script.args ?? [],
  stderr: "inherit",
});
const client = new Client({ name: "notch-tests-ts", version: "1.0.0" });
const report = { env: Object.keys(getDefaultEnvironment()).sort(), steps: [] };

try {
  await client.connect(transport);
  report.server = client.getServerVersion();
  report.capabilities = client.getServerCapabilities();
  for (const step of script.steps ?? []) {
    if (step.list === "tools") {
      report.steps.push({ tools: (await client.listTools()).tools.map((t) => t.name) });
    } else if (step.list === "prompts") {
      report.steps.push({ prompts: (await client.listPrompts()).prompts.map((p) => p.name) });
    } else if (step.list === "resources") {
      report.steps.push({
        resources: (await client.listResources()).resources.map((r) => r.uri),
      });
    } else if (step.call) {
      const progress = [];
      const options = {
        onprogress: (p) => {
          progress.push(p.progress);
          process.stderr.write(JSON.stringify({ progress: p.progress, message: p.message }) + "\n");
        },
      };
      if (step.resetTimeoutOnProgress) options.resetTimeoutOnProgress = true;
      if (step.timeoutMs) options.timeout = step.timeoutMs;
      const started = Date.now();
      try {
        const result = await client.callTool(
          { name: step.call, arguments: step.arguments ?? {} },
          undefined,
          options,
        );
        report.steps.push({
          call: step.call,
          isError: result.isError ?? false,
          text: (result.content ?? []).map((c) => c.text ?? "").join("\n"),
          progress,
          ms: Date.now() - started,
        });
      } catch (error) {
        report.steps.push({
          call: step.call,
          error: String(error?.message ?? error),
          code: error?.code,
          progress,
          ms: Date.now() - started,
        });
      }
    }
  }
} finally {
  await client.close();
}
process.stdout.write(JSON.stringify(report) + "\n");
