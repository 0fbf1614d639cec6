/** Tool URLs are parsed one way across the broker (go-broker-inventory §4.2 parseToolURL). */
export { parseToolUrl, ToolUrlError, type ToolUrl } from '../../mcp/tool-url.ts';
