// The version asimov reports (`asimov --version`, the MCP servers' serverInfo). Its own module, so that a
// command bundle needing it does not pull in the command dispatcher.
export const VERSION = '0.1.0';
