/** How an MCP tool result reads as an observation: text as is, images and resources as short text references. */
export function mcpResultText(result: { content?: unknown; structuredContent?: unknown }): string {
  const parts: string[] = [];
  for (const item of Array.isArray(result.content) ? result.content : []) {
    const c = item as {
      type?: string;
      text?: string;
      mimeType?: string;
      data?: string;
      uri?: string;
      name?: string;
      resource?: { uri?: string; text?: string };
    };
    if (c.type === 'text' && typeof c.text === 'string') parts.push(c.text);
    else if (c.type === 'image' || c.type === 'audio')
      parts.push(`[${c.type} ${c.mimeType ?? 'unknown type'}, ${Buffer.byteLength(c.data ?? '', 'base64')} bytes]`);
    else if (c.type === 'resource_link') parts.push(`[resource ${c.uri ?? ''}${c.name ? ` (${c.name})` : ''}]`);
    else if (c.type === 'resource') parts.push(c.resource?.text ?? `[resource ${c.resource?.uri ?? ''}]`);
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  return parts.join('\n');
}
