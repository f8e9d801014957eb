import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** A free-form JSON object in an OpenAPI schema (config, args, outputs: shaped by the user, not by us). */
export const JsonObject = () => ApiProperty({ type: 'object', additionalProperties: true });
export const NullableString = (description?: string) => ApiProperty({ type: String, nullable: true, description });
/** Any JSON value, null included (a policy diff's before/after: whatever the config held there). */
export const OptionalJsonValue = (description?: string) =>
  ApiPropertyOptional({
    description,
    nullable: true,
    oneOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'object', additionalProperties: true },
      { type: 'array', items: {} },
    ],
  });
export const OptionalString = (description?: string) => ApiPropertyOptional({ type: String, description });
/** An endpoint answering with server-sent events (documented, not typed: each event's data is in API.md). */
export const SSE_RESPONSE = {
  description: 'text/event-stream: id, event and JSON data per event (see API.md "Chat (SSE)")',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
} as const;
