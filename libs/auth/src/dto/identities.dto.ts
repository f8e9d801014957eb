import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, Length, ValidateIf } from 'class-validator';

export class SetIdentitiesDto {
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Feishu open id (ou_...); null unlinks' })
  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsString()
  @Length(1, 200)
  feishu_open_id?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'Slack user id (U...); null unlinks' })
  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsString()
  @Length(1, 200)
  slack_user_id?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'WeCom user id; null unlinks' })
  @ValidateIf((_, v) => v !== null)
  @IsOptional()
  @IsString()
  @Length(1, 200)
  wecom_user_id?: string | null;
}

export class SetReadOnlyDto {
  @ApiProperty() @IsBoolean() read_only: boolean;
}
