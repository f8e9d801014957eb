import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';

/** Field-level shape only; names, methods, paths, schemas and CEL conditions are checked by ConnectorsService. */
export class ConnectorActionDto {
  @ApiProperty() @IsString() name: string;
  @ApiProperty() @IsString() method: string;
  @ApiProperty() @IsString() path: string;
  @ApiPropertyOptional() @IsOptional() @IsString() description?: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) @IsOptional() @IsObject() parameters?: Record<
    string,
    unknown
  >;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() requires_confirmation?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsString() requires_confirmation_when?: string;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() write?: boolean;
}

export class ConnectorDto {
  @ApiProperty() @IsString() name: string;
  @ApiProperty() @IsString() base_url: string;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsObject()
  headers?: Record<string, string>;
  @ApiProperty({ type: [ConnectorActionDto] })
  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => ConnectorActionDto)
  actions: ConnectorActionDto[];
}
