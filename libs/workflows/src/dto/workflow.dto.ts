import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Length } from 'class-validator';

const JSON_OBJECT = { type: 'object', additionalProperties: true } as const;

export class CreateWorkflowDto {
  @ApiProperty() @IsString() @Length(1, 200) name: string;
  @ApiProperty({ ...JSON_OBJECT, description: '{ nodes: [...], edges: [...] } — see API.md "Workflows"' })
  @IsObject()
  definition: Record<string, unknown>;
}

export class UpdateWorkflowDto {
  @ApiProperty({ required: false }) @IsOptional() @IsString() @Length(1, 200) name?: string;
  @ApiPropertyOptional(JSON_OBJECT) @IsOptional() @IsObject() definition?: Record<string, unknown>;
}

export class StartWorkflowRunDto {
  @ApiPropertyOptional(JSON_OBJECT) @IsOptional() @IsObject() inputs?: Record<string, unknown>;
}

export class ValidateWorkflowDto {
  @ApiProperty({ ...JSON_OBJECT, description: 'the definition to check, as it would be saved' })
  @IsObject()
  definition: Record<string, unknown>;
}
