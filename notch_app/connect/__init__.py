"""Connectors: Notch inside an agent framework's own approval step (Qt-free).

`tools` turns Notch's catalog into the tool definitions a model expects; `langchain`,
`openai_agents` and `mcp` answer those frameworks' pending tool calls through Notch.
The framework modules import their framework: install `notch[langchain]` or
`notch[openai-agents]` (the MCP SDK is a dependency of Notch itself).
"""
