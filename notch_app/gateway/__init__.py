"""`notch mcp`: a confirming gateway between an MCP client and an MCP server.

The client (a desktop assistant, an IDE agent) starts `notch mcp` as its MCP server. The
gateway starts the integration's own server (`wrapped`), lists its tools as the manifest
describes them (`tools`), forwards read-only calls at once and asks the person through
the running `notch run` before any acting call (`asking`), then forwards the arguments
the person approved. `gateway` relays the lines between the two pipes, on its parts:
`held_calls` (an acting call held for a yes), `tool_list`, `server_side` (the wrapped
server), `relay` (its state, the front's check) and `messages`; `docs/gateway.md`
explains the design. Qt-free; a client of the socket like `notch_app.client`.
"""
