"""memworks as an MCP server: memory and lessons as tools, bound to one scope per connection."""

from memworks.mcp.binding import USER_HEADER, Binding, fixed_binding, key_binding
from memworks.mcp.http import MCP_PATH, McpEndpoint, standalone_app
from memworks.mcp.server import DESCRIPTIONS, build_server

__all__ = [
    # the server and its tools
    "build_server",
    "DESCRIPTIONS",
    # the scope a connection acts in
    "Binding",
    "fixed_binding",
    "key_binding",
    "USER_HEADER",
    # streamable HTTP
    "McpEndpoint",
    "MCP_PATH",
    "standalone_app",
]
