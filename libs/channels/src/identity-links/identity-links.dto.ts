import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, IsUUID, Length, Matches } from 'class-validator';

export class StartLinkDto {
  @ApiProperty({ enum: ['feishu', 'slack', 'wecom'] })
  @IsIn(['feishu', 'slack', 'wecom'], { message: 'platform must be one of feishu, slack, wecom' })
  platform!: 'feishu' | 'slack' | 'wecom';

  @ApiProperty({ description: 'Your account on that platform (Feishu open id, Slack user id, WeCom user id)' })
  @IsString()
  @Length(1, 200, { message: 'external_id must be 1-200 characters' })
  external_id!: string;

  @ApiPropertyOptional({
    description: 'The channel to send the code through; default: the first channel of that platform',
  })
  @IsOptional()
  @IsString()
  channel_id?: string;
}

export class VerifyLinkDto {
  @ApiProperty()
  @IsUUID('all', { message: 'link_id must be the id POST /api/me/identities/link returned' })
  link_id!: string;

  @ApiProperty({ description: 'The 6-digit code sent to the account' })
  @IsString()
  @Matches(/^\d{6}$/, { message: 'code must be the 6 digits that were sent' })
  code!: string;
}
