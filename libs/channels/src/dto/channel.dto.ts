import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsObject, IsOptional, IsString, Length } from 'class-validator';
import type { ChannelType } from '../channel.js';

const TYPES: ChannelType[] = ['feishu', 'slack', 'wecom', 'inbox'];

export class CreateChannelDto {
  @ApiProperty({ enum: TYPES }) @IsIn(TYPES, { message: `type must be one of ${TYPES.join(', ')}` }) type: ChannelType;
  @ApiProperty() @IsString() @Length(1, 200) name: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Per-type settings; secrets are write-only',
  })
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;
  @ApiPropertyOptional({ description: 'Make this the org default channel for approvals' })
  @IsOptional()
  @IsBoolean()
  is_default?: boolean;
}

export class UpdateChannelDto {
  @ApiPropertyOptional() @IsOptional() @IsString() @Length(1, 200) name?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description:
      'Keys to change (merged into the stored config); null removes an optional key; omitted secrets are kept',
  })
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown>;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() is_default?: boolean;
}
