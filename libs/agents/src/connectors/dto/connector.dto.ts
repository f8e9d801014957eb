import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';

/** Field-level shape only; names, methods, paths, schemas and CEL conditions are checked by ConnectorsService. */
export class ConnectorActionDto {
  @IsString() name: string;
  @IsString() method: string;
  @IsString() path: string;
  @IsOptional() @IsString() description?: string;
  @IsOptional() @IsObject() parameters?: Record<string, unknown>;
  @IsOptional() @IsBoolean() requires_confirmation?: boolean;
  @IsOptional() @IsString() requires_confirmation_when?: string;
  @IsOptional() @IsBoolean() write?: boolean;
}

export class ConnectorDto {
  @IsString() name: string;
  @IsString() base_url: string;
  @IsOptional() @IsObject() headers?: Record<string, string>;
  @IsArray() @ValidateNested({ each: true }) @Type(() => ConnectorActionDto) actions: ConnectorActionDto[];
}
