import { IsObject, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';

export class AgentDto {
  @IsString() @MinLength(1) @MaxLength(200) name: string;
  @IsOptional() @IsString() instructions?: string;
  @IsObject() model_config_json: Record<string, unknown>;
}
