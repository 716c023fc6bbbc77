// A real TypeScript MCP SDK server (stdio) whose `search` tool changes under the agent
// without telling it, as a redeploy does: `search` takes `query` until `release` is
// called, then `search_query`. The SDK's zod schemas drop keys they do not know, so the
// new version answers a stale `query` call with an empty result and no error: seed 002's
// silent failure. (The SDK would send list_changed; a redeployed server has no session
// to send it on, so it is switched off here.)
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "search-server", version: "1.0.0" });
const found = (q) => ({ results: q ? [`doc about ${q}`] : [], count: q ? 1 : 0 });
const answer = (v) => ({ content: [{ type: "text", text: JSON.stringify(v) }], structuredContent: v });
const out = { results: z.array(z.string()), count: z.number() };

let search = server.registerTool(
  "search",
  { description: "Search the documents.", inputSchema: { query: z.string() }, outputSchema: out },
  async ({ query }) => answer(found(query)),
);

server.registerTool("release", { description: "Roll out the new version of `search`." }, async () => {
  server.sendToolListChanged = () => {};
  search.remove();
  search = server.registerTool(
    "search",
    { description: "Search the documents.", inputSchema: { search_query: z.string().default("") }, outputSchema: out },
    async ({ search_query }) => answer(found(search_query)),
  );
  return { content: [{ type: "text", text: "released search v2" }] };
});

await server.connect(new StdioServerTransport());
