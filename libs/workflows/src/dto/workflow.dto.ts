import { ApiProperty } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, Length } from 'class-validator';

export class CreateWorkflowDto {
  @ApiProperty() @IsString() @Length(1, 200) name: string;
  @ApiProperty({ description: '{ nodes: [...], edges: [...] } — see API.md "Workflows"' }) @IsObject() definition: Record<string, unknown>;
}

export class UpdateWorkflowDto {
  @ApiProperty({ required: false }) @IsOptional() @IsString() @Length(1, 200) name?: string;
  @ApiProperty({ required: false }) @IsOptional() @IsObject() definition?: Record<string, unknown>;
}

export class StartWorkflowRunDto {
  @ApiProperty({ required: false }) @IsOptional() @IsObject() inputs?: Record<string, unknown>;
}
